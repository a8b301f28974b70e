"""Regenerate the iCalendar alarm corpus: Tests/HeraldCoreTests/Fixtures/calendar-corpus.

    python3 scripts/oracles/make_ical_corpus        (python3 with recurring-ical-events, for the check)

Deterministic (one seeded random.Random), the output is committed. Every item is a VEVENT
or VTODO (with its RECURRENCE-ID overrides) carrying at least one VALARM, its occurrences in
2026-01-01..2028-01-01 (a few rules run on, to test the window's end). The hand-written
files cover each feature once or more; bulk/ holds seeded combinations.

Kept out, because recurring-ical-events 3.8.2 / icalendar 7.3.0 are not RFC 5545 strict
there (or the RFC leaves it open), so the oracle cannot be trusted on it:
  * RRULE instances at a nonexistent local time (RFC: ignore and don't count them; the
    library moves them past the gap); explicit DTSTART/RDATE in a gap are in (pre-gap offset);
  * a local time in a gap in a custom VTIMEZONE (dateutil.tzical takes the post-gap offset);
  * an IANA TZID with a VTIMEZONE that disagrees with tzdata (icalendar ignores the VTIMEZONE);
    the generated VTIMEZONEs here are checked against tzdata;
  * hour/minute TRIGGERs, DURATIONs and DTEND-durations whose span crosses a UTC-offset change,
    and time-part TRIGGERs on all-day items (the library adds on the wall clock, or on the date);
  * a time part of 24 hours or more (PT24H is exact, P1D nominal; parsing loses the difference);
  * DTSTART not an instance of its RRULE (undefined; the library adds it on top of COUNT);
  * UNTIL of another value type than DTSTART, more than one RRULE, X-WR-TIMEZONE;
  * absolute TRIGGERs on recurring items, identical VALARMs within one component, RELATED=START
    on a VTODO without DTSTART, REPEAT without DURATION, folds inside a UTF-8 sequence.

After writing, the corpus is checked (exit 1 on a problem): scripts/oracles/ical-oracle.py --compare
in five zones (no instant may differ from the library's own expansion, no warning), at least
200 items have alarms, the items without any are exactly expected-silent.txt, every DTSTART
is the first instance of its RRULE, every VTIMEZONE made from tzdata agrees with it, and no
DURATION or TRIGGER has a time part of 24 hours or more.

The modules, one job each:

  __main__.py  the command line: clear the corpus, write every file, check, exit status
  writer.py    iCalendar text: time zones, content lines, and Cal (one corpus file)
  files.py     the hand-written files, each feature once or more
  bulk.py      the seeded combinations in bulk/
  check.py     the checks of the written corpus (the oracle's --compare among them)
"""
