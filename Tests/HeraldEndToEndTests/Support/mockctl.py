#!/usr/bin/python3
"""Test helper: talks to python-dbusmock's notification_daemon on the session bus.

  mockctl.py wait            wait (up to 10 s) until org.freedesktop.Notifications is owned
  mockctl.py gone            wait (up to 10 s) until nothing owns it
  mockctl.py calls           print the Notify calls received so far as JSON
  mockctl.py closed          print the ids passed to CloseNotification so far as JSON
  mockctl.py break           make Notify fail with a D-Bus error
  mockctl.py fix             make Notify work again
  mockctl.py stall N FIFO    make the Nth Notify from now hold the server until FIFO is opened for writing and closed
  mockctl.py emit SIGNAL ARGS...   make the mock emit ActionInvoked / NotificationClosed
"""
import json
import sys

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = 'org.freedesktop.Notifications'
# The template's own Notify, to put back after 'break'.
NOTIFY_CODE = '''if args[1]:
    ret = args[1]
else:
    ret = self.next_id
    self.next_id += 1
'''
PATH = '/org/freedesktop/Notifications'


def plain(value):
    if isinstance(value, (dbus.Boolean,)):
        return bool(value)
    if isinstance(value, (dbus.Byte, dbus.Int16, dbus.Int32, dbus.Int64, dbus.UInt16, dbus.UInt32, dbus.UInt64)):
        return int(value)
    if isinstance(value, (dbus.Double,)):
        return float(value)
    if isinstance(value, (dbus.Array, list)):
        return [plain(v) for v in value]
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    return str(value)


def wait_for_owner(bus, present, timeout=10):
    """Waits for the bus's NameOwnerChanged saying NAME is owned (or not), up to `timeout` s."""
    loop = GLib.MainLoop()
    def changed(name, old, new):
        if bool(new) == present:
            loop.quit()
    match = bus.add_signal_receiver(changed, signal_name='NameOwnerChanged', dbus_interface='org.freedesktop.DBus',
                                    arg0=NAME)
    try:
        # Asked after subscribing, so a change in between is not missed.
        if bus.name_has_owner(NAME) == present:
            return True
        timed_out = []
        GLib.timeout_add(timeout * 1000, lambda: (timed_out.append(True), loop.quit()) and False)
        loop.run()
        return not timed_out and bus.name_has_owner(NAME) == present
    finally:
        match.remove()


def main():
    bus = dbus.SessionBus(mainloop=DBusGMainLoop())
    command = sys.argv[1]
    if command == 'wait':
        if wait_for_owner(bus, present=True):
            return 0
        print('notification server did not appear on the bus', file=sys.stderr)
        return 1
    if command == 'gone':
        if wait_for_owner(bus, present=False):
            return 0
        print('notification server is still on the bus', file=sys.stderr)
        return 1
    mock = dbus.Interface(bus.get_object(NAME, PATH), 'org.freedesktop.DBus.Mock')
    if command == 'calls':
        calls = []
        for _stamp, method, args in mock.GetCalls():
            if method != 'Notify':
                continue
            app, replaces, icon, summary, body, actions, hints, timeout = args
            calls.append({'app': str(app), 'replaces': int(replaces), 'icon': str(icon), 'summary': str(summary),
                          'body': str(body), 'actions': plain(actions), 'hints': plain(hints), 'timeout': int(timeout)})
        print(json.dumps(calls))
        return 0
    if command in ('break', 'fix'):
        code = ('raise dbus.exceptions.DBusException("Herald test: the server is broken", '
                'name="org.freedesktop.Notifications.Error.Broken")') if command == 'break' else NOTIFY_CODE
        mock.AddMethod(NAME, 'Notify', 'susssasa{sv}i', 'u', code)
        return 0
    if command == 'stall':
        # Counted on the mock object; the call is logged (GetCalls) before it stalls.
        code = ('self.herald_stall = getattr(self, "herald_stall", 0) + 1\n'
                'if self.herald_stall == %d:\n'
                '    open(%r).read()\n' % (int(sys.argv[2]), sys.argv[3])) + NOTIFY_CODE
        mock.AddMethod(NAME, 'Notify', 'susssasa{sv}i', 'u', code)
        return 0
    if command == 'closed':
        print(json.dumps([int(args[0]) for _stamp, method, args in mock.GetCalls() if method == 'CloseNotification']))
        return 0
    if command == 'emit':
        signal = sys.argv[2]
        if signal == 'ActionInvoked':
            mock.EmitSignal('', 'ActionInvoked', 'us', [dbus.UInt32(int(sys.argv[3])), sys.argv[4]])
        elif signal == 'NotificationClosed':
            mock.EmitSignal('', 'NotificationClosed', 'uu', [dbus.UInt32(int(sys.argv[3])), dbus.UInt32(int(sys.argv[4]))])
        else:
            print('unknown signal ' + signal, file=sys.stderr)
            return 2
        return 0
    print('unknown command ' + command, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
