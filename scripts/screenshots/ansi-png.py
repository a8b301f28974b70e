#!/usr/bin/python3
"""Renders terminal output with 256-colour escapes (stdin) as a PNG through ImageMagick:
a dark terminal, DejaVu Sans Mono. Used for the README's `herald habit show` picture."""
import re
import subprocess
import sys

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
SIZE, CELL_W, CELL_H, PAD = 16, 10, 20, 16
FG, BG = "#d0d0d0", "#1c1c1c"


def colour(n):
    """xterm's 256-colour palette."""
    basic = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
             "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"]
    if n < 16:
        return basic[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


def main():
    text = sys.stdin.read().replace("\r", "")
    lines = text.rstrip("\n").split("\n")
    draws, width = [], 0
    for row, line in enumerate(lines):
        col, fill, bold = 0, FG, False
        for token in re.split(r"(\x1b\[[0-9;]*m)", line):
            if token.startswith("\x1b["):
                codes = token[2:-1].split(";")
                if codes in (["0"], [""]):
                    fill, bold = FG, False
                elif codes[:2] == ["38", "5"]:
                    fill = colour(int(codes[2]))
                elif codes == ["1"]:
                    bold = True
                elif codes == ["32"]:
                    fill = colour(2)
                continue
            if not token:
                continue
            x, y = PAD + col * CELL_W, PAD + (row + 1) * CELL_H - 5
            safe = token.replace("\\", "\\\\").replace("'", "\\'")
            draws += ["-fill", fill, "-annotate", "+%d+%d" % (x, y), safe]
            col += len(token)
        width = max(width, col)
    size = "%dx%d" % (2 * PAD + width * CELL_W, 2 * PAD + len(lines) * CELL_H)
    subprocess.run(["convert", "-size", size, "xc:" + BG, "-font", FONT, "-pointsize", str(SIZE)] + draws + [sys.argv[1]],
                   check=True)


main()
