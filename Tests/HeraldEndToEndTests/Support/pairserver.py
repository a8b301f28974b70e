#!/usr/bin/python3
"""Test helper: a notification server that answers a Notify only once a second one is waiting
for its answer too (or after HOLD_MS), so a client with two shows on the wire gets its answers
at once and one that waits for each answer before the next waits HOLD_MS each time.

  pairserver.py LOG HOLD_MS [close]
      owns org.freedesktop.Notifications on the session bus; appends one JSON line per Notify to
      LOG: {"summary", "waiting"}, where waiting counts the calls unanswered as it came, itself
      included. With "close", each popup is closed (NotificationClosed, reason 1: expired) as
      its Notify arrives, before it is answered: the client hears of the closing first.
"""
import json
import sys

from gi.repository import Gio, GLib

XML = '''<node><interface name='org.freedesktop.Notifications'>
<method name='Notify'><arg type='s' direction='in'/><arg type='u' direction='in'/><arg type='s' direction='in'/>
<arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='as' direction='in'/>
<arg type='a{sv}' direction='in'/><arg type='i' direction='in'/><arg type='u' direction='out'/></method>
<method name='CloseNotification'><arg type='u' direction='in'/></method>
<method name='GetCapabilities'><arg type='as' direction='out'/></method>
<method name='GetServerInformation'><arg type='s' direction='out'/><arg type='s' direction='out'/>
<arg type='s' direction='out'/><arg type='s' direction='out'/></method>
<signal name='NotificationClosed'><arg type='u'/><arg type='u'/></signal>
<signal name='ActionInvoked'><arg type='u'/><arg type='s'/></signal>
</interface></node>'''

log = open(sys.argv[1], 'a')
hold_ms = int(sys.argv[2])
close_at_once = sys.argv[3:] == ['close']
waiting = []  # (invocation, id) not answered yet
next_id = [1]


def answer_all():
    for invocation, nid in waiting:
        invocation.return_value(GLib.Variant('(u)', (nid,)))
    waiting.clear()
    return False


def call(connection, sender, path, interface, method, parameters, invocation):
    if method == 'Notify':
        nid = next_id[0]
        next_id[0] += 1
        if close_at_once:
            connection.emit_signal(None, path, interface, 'NotificationClosed', GLib.Variant('(uu)', (nid, 1)))
        waiting.append((invocation, nid))
        log.write(json.dumps({'summary': parameters[3], 'waiting': len(waiting)}) + '\n')
        log.flush()
        if len(waiting) >= 2:
            answer_all()
        elif len(waiting) == 1:
            GLib.timeout_add(hold_ms, lambda: answer_all() if waiting and waiting[0][1] == nid else False)
    elif method == 'CloseNotification':
        invocation.return_value(None)
    elif method == 'GetCapabilities':
        invocation.return_value(GLib.Variant('(as)', (['body', 'actions'],)))
    elif method == 'GetServerInformation':
        invocation.return_value(GLib.Variant('(ssss)', ('pairserver', 'Herald tests', '1', '1.2')))


def acquired(connection, name):
    print('ready', flush=True)


def main():
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    node = Gio.DBusNodeInfo.new_for_xml(XML)
    bus.register_object('/org/freedesktop/Notifications', node.interfaces[0], call, None, None)
    Gio.bus_own_name_on_connection(bus, 'org.freedesktop.Notifications', Gio.BusNameOwnerFlags.NONE, acquired, None)
    GLib.MainLoop().run()


if __name__ == '__main__':
    main()
