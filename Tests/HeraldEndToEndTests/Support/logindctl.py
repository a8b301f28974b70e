#!/usr/bin/python3
"""Test helper: talks to python-dbusmock's logind template on the bus DBUS_SYSTEM_BUS_ADDRESS names.

  logindctl.py wait               wait (up to 10 s) until org.freedesktop.login1 answers
  logindctl.py inhibitors         print the inhibitor locks held now as JSON [[what, who, why, mode], ...]
  logindctl.py sleep true|false   emit PrepareForSleep(true) (going to sleep) or (false) (resumed)
"""
import json
import sys
import time

import dbus

NAME = 'org.freedesktop.login1'
PATH = '/org/freedesktop/login1'
MANAGER = 'org.freedesktop.login1.Manager'


def manager(bus):
    return dbus.Interface(bus.get_object(NAME, PATH), MANAGER)


def main():
    bus = dbus.SystemBus()
    command = sys.argv[1]
    if command == 'wait':
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                manager(bus).ListInhibitors()
                return 0
            except dbus.exceptions.DBusException:
                time.sleep(0.05)
        return 1
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
