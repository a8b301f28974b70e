"""A private D-Bus session bus: the stock session bus's policy and limits, without
<standard_session_servicedirs/> (nothing of the machine's is started on it), as
Sources/HeraldTestSupport/SessionBus.swift writes it."""
import os
import subprocess

CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- {note} -->
<busconfig>
  <type>{type}</type>
  <listen>{listen}</listen>
  <auth>EXTERNAL</auth>
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="max_outgoing_bytes">1000000000</limit>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def config(listen, bus_type="session", note="no service directories: nothing is auto-activated"):
    """The configuration of a bus listening on `listen` (a D-Bus address such as unix:dir=D)."""
    return CONFIG.format(listen=listen, type=bus_type, note=note)


def write_config(path, socket_dir):
    """Writes a session bus's configuration to `path`, its socket in `socket_dir`."""
    with open(path, "w") as f:
        f.write(config("unix:dir=" + socket_dir))


def start(work_dir, log=subprocess.DEVNULL):
    """Starts a bus in `work_dir`; returns (process, address)."""
    conf = os.path.join(work_dir, "bus.conf")
    write_config(conf, work_dir)
    proc = subprocess.Popen(["/usr/bin/dbus-daemon", "--config-file=" + conf, "--nofork", "--print-address=1"],
                            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin"})
    address = proc.stdout.readline().decode().strip()
    if not address.startswith("unix:"):
        proc.kill()
        raise RuntimeError(f"dbus-daemon said {address!r}")
    return proc, address
