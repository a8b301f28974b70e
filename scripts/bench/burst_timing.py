#!/usr/bin/python3
"""Times a burst (BENCHMARKS.md, "Bursts"): N reminders due at one instant, imported 4 s ahead into a
running heraldd on a private bus whose server is scripts/bench/burst-server.c; prints due → first and
last Notify received and the CPU heraldd, the server and the bus used over the burst.
usage: burst_timing.py BIN_DIR N [SERVER [FLOOR]]   (SERVER: the built burst-server, default /tmp/burst-server;
FLOOR: the built notify-floor.c, default /tmp/notify-floor, run against the same server right after: the
ratio of heraldd's burst to N synchronous libnotify calls)
SERVER_WORK_US=N has the server spend N µs of CPU on each Notify before it answers (a server that draws).
QUEUED=N first files N reminders due a day later (as make bench's 100,000 queued jobs); the gaps
between consecutive arrivals are printed for heraldd and the floor (a burst slowed throughout, or
in bubbles). WRAP="perf record -g -o FILE" runs heraldd under another tool; PERF=FILE records heraldd with perf over
the burst alone (from 0.5 s before it is due until the last popup). FLOOR_LANES=K runs the floor a second time with
its calls on K threads (notify-floor's LANES), as heraldd's show lanes make them."""
import os, sys, subprocess, time, datetime, shutil, tempfile
bindir, n = sys.argv[1], int(sys.argv[2])
server = sys.argv[3] if len(sys.argv) > 3 else '/tmp/burst-server'
floor = sys.argv[4] if len(sys.argv) > 4 else '/tmp/notify-floor'
base = tempfile.mkdtemp(prefix='herald-burst-')
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from herald_scripts import bus as private_bus, procfs  # noqa: E402
bus, address = private_bus.start(base)
env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address, HERALD_CONFIG=base + '/config.yaml')
open(base + '/config.yaml', 'w').write('limits:\n  jobs: 3000000\n')
srv = subprocess.Popen([server, base + '/arrivals'] + ([os.environ['SERVER_WORK_US']] if os.environ.get('SERVER_WORK_US') else []), env=env, stdout=subprocess.PIPE, text=True)
if srv.stdout.readline().strip() != 'ready':  # it said why on stderr
    bus.terminate(); bus.wait(); shutil.rmtree(base)
    sys.exit('burst_timing: the server did not start (exit status %s)' % srv.wait())
spool = base + '/spool'
d = subprocess.Popen(os.environ.get('WRAP', '').split() + [bindir + '/heraldd', '--spool', spool], env=env,
                     stdout=subprocess.DEVNULL, stderr=open(base + '/heraldd.log', 'w'))
queued = int(os.environ.get('QUEUED', '0'))
if queued:
    later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).strftime('%Y-%m-%dT%H:%M:%S.%fZ')
    with open(base + '/queued.jsonl', 'w') as f:
        for k in range(queued): f.write('{"version":1,"kind":"reminder","id":"q%d","at":"%s","text":"q-%d"}\n' % (k, later, k))
    subprocess.run([bindir + '/herald', 'import', base + '/queued.jsonl', '--spool', spool], check=True, env=env, stdout=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and (not os.path.isdir(spool + '/jobs') or len(os.listdir(spool + '/jobs')) < queued): time.sleep(0.2)
    os.sync()
due = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=4)
with open(base + '/burst.jsonl', 'w') as f:
    for k in range(n):
        f.write('{"version":1,"kind":"reminder","id":"b%d","at":"%s","text":"b-%d"}\n' % (k, due.strftime('%Y-%m-%dT%H:%M:%S.%fZ'), k))
subprocess.run([bindir + '/herald', 'import', base + '/burst.jsonl', '--spool', spool], check=True, env=env, stdout=subprocess.DEVNULL)
def switches(pid):  # {thread name: context switches}, threads of one name summed
    out = {}
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            name = open('/proc/%d/task/%s/comm' % (pid, tid)).read().strip()
            status = open('/proc/%d/task/%s/status' % (pid, tid)).read()
        except OSError:
            continue
        out[name] = out.get(name, 0) + sum(int(l.split()[1]) for l in status.splitlines() if 'ctxt_switches' in l)
    return out
def cpu(p):  # utime + stime, ms
    return round(procfs.cpu_seconds(p.pid, family=False) * 1000)
time.sleep(max(0, (due - datetime.datetime.now(datetime.timezone.utc)).total_seconds() - 0.5))
procs = {'heraldd': d, 'server': srv, 'bus': bus}
before = {k: cpu(p) for k, p in procs.items()}
switched = switches(d.pid)
perf = subprocess.Popen(['perf', 'record'] + os.environ.get('PERF_EVENTS', '-F 20000').split() + ['-g', '-o', os.environ['PERF'], '-p', str(d.pid)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if os.environ.get('PERF') else None
deadline = time.time() + 60
while time.time() < deadline and sum(1 for _ in open(base + '/arrivals')) < n: time.sleep(0.05)
used = {k: cpu(p) - before[k] for k, p in procs.items()}
switched = {k: v - switched.get(k, 0) for k, v in switches(d.pid).items()}
if perf:
    perf.send_signal(2); perf.wait()
times = [int(line.split()[0]) for line in open(base + '/arrivals')]
due_ns = int(due.timestamp() * 1e9)
print('received %d of %d: first %.1f ms, last %.1f ms after due; CPU ms over the burst: %s; heraldd\'s context switches by thread: %s'
      % (len(times), n, (min(times) - due_ns) / 1e6, (max(times) - due_ns) / 1e6, used, switched))
def floor_burst(prefix, extra_env):  # notify-floor's N popups against the same server: ms from its start to the last
    start_ns = int(subprocess.run([floor, 'burst', prefix, str(n)], env=dict(env, **extra_env), check=True,
                                  capture_output=True, text=True).stdout)
    deadline = time.time() + 60
    while time.time() < deadline and sum(1 for line in open(base + '/arrivals') if ' %s-' % prefix in line) < n: time.sleep(0.05)
    return (max(int(line.split()[0]) for line in open(base + '/arrivals') if ' %s-' % prefix in line) - start_ns) / 1e6
last_ms = (max(times) - due_ns) / 1e6
floor_ms = floor_burst('Z', {})
print('floor (notify-floor, same server): %.1f ms; ratio %.2f' % (floor_ms, last_ms / floor_ms))
if os.environ.get('FLOOR_LANES'):  # the floor again with its calls on that many threads (notify-floor's LANES)
    lanes_ms = floor_burst('Y', {'LANES': os.environ['FLOOR_LANES']})
    print('floor on %s lanes: %.1f ms; ratio %.2f' % (os.environ['FLOOR_LANES'], lanes_ms, last_ms / lanes_ms))
def gaps(arrivals):  # µs between consecutive arrivals: p50, p90, p99, max, and the sum of those over 0.5 ms
    g = sorted((b - a) / 1e3 for a, b in zip(arrivals, arrivals[1:]))
    return 'p50 %.0f · p90 %.0f · p99 %.0f · max %.0f µs; gaps over 0.5 ms add up to %.0f ms' % (
        g[len(g) // 2], g[int(len(g) * .9)], g[int(len(g) * .99)], g[-1], sum(x for x in g if x > 500) / 1e3)
print('gaps between arrivals: heraldd %s; floor %s' % (gaps(sorted(times)), gaps(sorted(int(line.split()[0]) for line in open(base + '/arrivals') if ' Z-' in line))))
for p in (d, srv, bus): p.terminate(); p.wait()
shutil.rmtree(base)
