#!/usr/bin/python3
"""A "phone" for Herald's end-to-end sync test: a CalDAV client (python3-caldav, Debian's) that
talks to the Radicale of scripts/oracles/caldav-peers.sh directly, as DAVx5 with tasks.org or
iOS Reminders would, and does what those apps do to an item.

  caldav-phone.py URL get UID              the item as the server has it (its iCalendar text)
  caldav-phone.py URL complete UID         done on the phone: STATUS:COMPLETED, COMPLETED,
                                           PERCENT-COMPLETE:100 (what tasks.org writes)
  caldav-phone.py URL lastack UID TIME     dismissed in Thunderbird: X-MOZ-LASTACK:TIME
                                           (TIME as 20261126T120000Z)

URL is the calendar collection (http://127.0.0.1:PORT/herald/calendar/); user and password are
"herald", as caldav-peers.sh sets them. Exit status 0, 1 when the item is not there.
"""
import datetime
import sys

import caldav
import icalendar


def item(calendar, uid):
    try:
        return calendar.object_by_uid(uid)
    except caldav.error.NotFoundError:
        sys.exit(f"caldav-phone: no item {uid} on the server")


def component(obj):
    cal = icalendar.Calendar.from_ical(obj.data)
    for c in cal.walk():
        if c.name in ("VTODO", "VEVENT"):
            return cal, c
    sys.exit("caldav-phone: the item has no VTODO or VEVENT")


def main(argv):
    if len(argv) < 4 or argv[2] not in ("get", "complete", "lastack"):
        sys.exit(__doc__)
    url, verb, uid = argv[1], argv[2], argv[3]
    client = caldav.DAVClient(url=url, username="herald", password="herald")
    calendar = caldav.Calendar(client=client, url=url)
    obj = item(calendar, uid)
    if verb == "get":
        sys.stdout.write(obj.data)
        return
    cal, c = component(obj)
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    if verb == "complete":
        for key in ("STATUS", "COMPLETED", "PERCENT-COMPLETE"):
            c.pop(key, None)
        c.add("STATUS", "COMPLETED")
        c.add("COMPLETED", now)
        c.add("PERCENT-COMPLETE", 100)
    else:
        if len(argv) < 5:
            sys.exit("caldav-phone: lastack needs a TIME")
        c.pop("X-MOZ-LASTACK", None)
        c.add("X-MOZ-LASTACK", argv[4])
    c.pop("LAST-MODIFIED", None)
    c.add("LAST-MODIFIED", now)
    obj.data = cal.to_ical().decode()
    obj.save()


if __name__ == "__main__":
    main(sys.argv)
