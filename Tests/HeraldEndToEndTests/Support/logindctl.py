#!/usr/bin/python3
"""Test helper: talks to python-dbusmock's logind template on the bus DBUS_SYSTEM_BUS_ADDRESS names.

  logindctl.py wait               wait (up to 10 s) until org.freedesktop.login1 answers
  logindctl.py inhibitors         print the inhibitor locks held now as JSON [[what, who, why, mode], ...]
  logindctl.py sleep true|false   emit PrepareForSleep(true) (going to sleep) or (false) (resumed)
"""
import json
import sys

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = 'org.freedesktop.login1'
PATH = '/org/freedesktop/login1'
MANAGER = 'org.freedesktop.login1.Manager'


def wait_for_owner(bus, timeout):
    """Waits for NameOwnerChanged saying NAME is owned, up to `timeout` s (asked after subscribing)."""
    loop = GLib.MainLoop()
    bus.add_signal_receiver(lambda name, old, new: new and loop.quit(), signal_name='NameOwnerChanged',
                            dbus_interface='org.freedesktop.DBus', arg0=NAME)
    if bus.name_has_owner(NAME):
        return True
    GLib.timeout_add(timeout * 1000, loop.quit)
    loop.run()
    return bool(bus.name_has_owner(NAME))


def manager(bus):
    return dbus.Interface(bus.get_object(NAME, PATH), MANAGER)


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    command = sys.argv[1]
    if command == 'wait':
        return 0 if wait_for_owner(bus, 10) else 1
    if command == 'inhibitors':
        print(json.dumps([[str(i[0]), str(i[1]), str(i[2]), str(i[3])] for i in manager(bus).ListInhibitors()]))
        return 0
    if command == 'sleep':
        mock = dbus.Interface(bus.get_object(NAME, PATH), 'org.freedesktop.DBus.Mock')
        mock.EmitSignal(MANAGER, 'PrepareForSleep', 'b', [dbus.Boolean(sys.argv[2] == 'true')])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
