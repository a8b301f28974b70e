"""What Herald's scripts share (issue 40: one of each): /proc readers (procfs), a private
D-Bus session bus (bus), files written whole (files), systemd's notify socket stood in for
(notify_socket). A script adds scripts/lib to sys.path:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from herald_scripts import procfs
"""
