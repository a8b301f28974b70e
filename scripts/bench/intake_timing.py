#!/usr/bin/python3
"""Times heraldd's intake (issue 27 part 4; BENCHMARKS.md, "Intake throughput"): imports N jobs as one
batch, starts heraldd --notifier console, and times READY=1 and the batch leaving new/.
usage: intake_timing.py BIN_DIR PARENT N [--keep] [--preload M] [--history MB] [--restart]
  --preload: M jobs filed into jobs/ first; --history: a history.jsonl of MB megabytes;
  --restart: heraldd stopped a second after it claims the batch and started again (READY then).
  PERF=file (and PERFARGS) runs heraldd under perf record; WRAP="strace ..." under another tool."""
import os, sys, time, socket, subprocess, datetime, shutil, signal
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from herald_scripts import procfs  # noqa: E402
from herald_scripts.notify_socket import NotifySocket  # noqa: E402
bindir, parent, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
keep = '--keep' in sys.argv
preload = int(sys.argv[sys.argv.index('--preload')+1]) if '--preload' in sys.argv else 0
base = os.path.join(parent, 'run-%d' % os.getpid()); os.makedirs(base)
spool = base + '/spool'
def batch(path, prefix, count):
    start = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=2)
    with open(path, 'w') as f:
        for k in range(count):
            at = (start + datetime.timedelta(microseconds=3600_000_000 * k // max(count,1))).strftime('%Y-%m-%dT%H:%M:%S.%fZ')
            f.write('{"version":1,"kind":"reminder","id":"bench-%s%d","at":"%s","text":"%s-%d"}\n' % (prefix, k, at, prefix, k))
def herald(*args):
    subprocess.run([bindir + '/herald', *args, '--spool', spool], check=True, stdout=subprocess.DEVNULL, env=env)
sockpath = base + '/notify'
notify = NotifySocket(sockpath)
open(base + '/config.yaml', 'w').write('limits:\n  jobs: 3000000\n')
env = dict(os.environ, NOTIFY_SOCKET=sockpath, HERALD_CONFIG=base + '/config.yaml')
def start():
    global since
    since = notify.mark()  # READY=1 of this start comes after it (heraldd may run under perf: any sender)
    log = open(base + '/heraldd.log', 'a')
    t = time.monotonic()
    pre = (['perf', 'record', '-q'] + os.environ.get('PERFARGS', '-F 1999').split() + ['-g', '-o', os.environ['PERF']] if os.environ.get('PERF') else []) + os.environ.get('WRAP', '').split()
    p = subprocess.Popen(pre + [bindir + '/heraldd', '--spool', spool, '--notifier', 'console'], env=env, stdout=subprocess.DEVNULL, stderr=log)
    return p, t
def ready(p, t0, timeout=60):
    wall0 = time.time() - (time.monotonic() - t0)
    t = notify.wait(None, 'READY=1', since, timeout, proc=p)
    if t is None: raise SystemExit('no READY=1 from heraldd')
    return t - wall0
first_filed = None
maxrss = 0
def wait_new_empty(p, t0, timeout=600):
    new = spool + '/new'
    global first_filed
    size0 = os.stat(spool + '/jobs').st_size
    while time.monotonic() - t0 < timeout:
        if first_filed is None and os.stat(spool + '/jobs').st_size != size0: first_filed = time.monotonic() - t0
        global maxrss
        ticks = globals().setdefault('ticks', 0) + 1; globals()['ticks'] = ticks
        if ticks % 25 == 0: maxrss = max(maxrss, int(rss(p)[0].split()[0]))
        if not os.listdir(new): return time.monotonic() - t0
        if p.poll() is not None: raise SystemExit('heraldd exited %s' % p.returncode)
        time.sleep(0.002)
    raise SystemExit('timeout')
def rss(p):
    return '%s kB' % procfs.status(p.pid, 'VmRSS'), '%s kB' % procfs.status(p.pid, 'VmHWM')
def stop(p):
    p.send_signal(signal.SIGTERM); p.wait(30)
hist = int(sys.argv[sys.argv.index('--history')+1]) if '--history' in sys.argv else 0
def history(mb):
    now = datetime.datetime.now(datetime.timezone.utc)
    with open(spool + '/history.jsonl', 'a') as f:
        k, size = 0, 0
        while size < mb << 20:
            t = (now - datetime.timedelta(seconds=k)).strftime('%Y-%m-%dT%H:%M:%S.%fZ')
            line = '{"time":"%s","id":"hist-%d","kind":"reminder","role":"reminder","due":"%s","lateMs":1,"outcome":"shown","title":"Reminder number %d"}\n' % (t, k, t, k)
            f.write(line); size += len(line); k += 1
if preload:
    batch(base + '/pre.jsonl', 'P', preload); herald('import', base + '/pre.jsonl')
    p, t = start(); ready(p, t); wait_new_empty(p, t); stop(p)
    os.sync()
first_filed = None
maxrss = 0
if hist: os.makedirs(spool, exist_ok=True); history(hist)
batch(base + '/queue.jsonl', 'Q', n)
t = time.monotonic(); herald('import', base + '/queue.jsonl'); imp = time.monotonic() - t
os.sync()
p, t0 = start()
r = ready(p, t0)
if '--restart' in sys.argv:
    # Stopped a second after the batch is claimed, then started again: READY with the rest still filing.
    while not any(x.startswith('.filing-') for x in os.listdir(spool + '/new')): time.sleep(0.002)
    time.sleep(1); stop(p); os.sync()
    filed = len(os.listdir(spool + '/jobs'))
    p, t0 = start(); r = ready(p, t0)
    print('restart: jobs/ held %d at restart, READY %.3fs' % (filed, r))
peak = 0
d = wait_new_empty(p, t0)
rs = rss(p)
st = open('/proc/%d/stat' % p.pid).read().rsplit(')', 1)[1].split(); cpu = 'cpu=%.2fu+%.2fs' % (int(st[11]) / 100, int(st[12]) / 100)
jobs = len(os.listdir(spool + '/jobs'))
print(cpu, 'maxrss-while-filing=%dkB' % maxrss, 'first-filed=%.2fs' % (first_filed or -1), 'n=%d preload=%d import=%.2fs READY=%.3fs intake=%.2fs rss=%s hwm=%s jobs=%d load=%s' % (n, preload, imp, r, d, rs[0], rs[1], jobs, open('/proc/loadavg').read().split()[0]))
time.sleep(3); print('rss 3 s after intake:', rss(p)[0])
stop(p)
if not keep: shutil.rmtree(base)
else: print(base)
