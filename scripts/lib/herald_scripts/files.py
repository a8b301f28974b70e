"""Files written whole, as vdirsyncer and Herald write them."""
import os


def write_atomically(path, text):
    """A hidden file beside `path`, renamed over it: a reader sees all of it or none."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, "." + name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)
