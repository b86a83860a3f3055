#!/usr/bin/env python3
"""tests/pgtmp.py, the throw-away PostgreSQL that the store tests start: it starts and answers,
role hokito writes through the URI and creates databases of its own, a row committed before
stop('immediate') (a crash) is there after the next start, terminate() ends another client's
session, restart() keeps the data, and close() leaves no server process and no directory, also
when a `with` block fails; `pgtmp.py run` gives its command the URI and returns its status. Every
wait is bounded. Prints TAP.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import pgtmp  # noqa: E402
from serverlib import Tap  # noqa: E402

PGTMP = os.path.join(os.path.dirname(HERE), "pgtmp.py")


def sql(pg, uri, text, timeout=20):
    """Run text with psql as a client would, over uri; returns (status, stdout, stderr)."""
    r = subprocess.run([pg.psql_path, "-X", "-w", "-At", "-v", "ON_ERROR_STOP=1", uri, "-c", text],
                       capture_output=True, text=True, timeout=timeout, env=pgtmp._clean_env())
    return r.returncode, r.stdout.strip(), r.stderr.strip()


def processes_in(path):
    """Pids of live processes whose working directory is path or under it."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cwd = os.readlink("/proc/%s/cwd" % pid)
        except OSError:
            continue
        cwd = cwd[:-len(" (deleted)")] if cwd.endswith(" (deleted)") else cwd
        if cwd == path or cwd.startswith(path + "/"):
            found.append(int(pid))
    return found


def postmaster_pid(pg):
    with open(os.path.join(pg.data, "postmaster.pid")) as f:
        return int(f.readline())


def gone(pid):
    """Whether pid has exited (a zombie waiting for its reaper counts as exited)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def sleeper(pg, name):
    """A psql session of role hokito inside pg_sleep(30), named name; returns its Popen."""
    return subprocess.Popen([pg.psql_path, "-X", "-At", pg.uri + "&application_name=" + name,
                             "-c", "select pg_sleep(30)"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=pgtmp._clean_env())


def wait_sessions(pg, names, timeout=10):
    """Wait until a session of each name is in pg_stat_activity; returns whether they were."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        rows = pg.psql("select application_name from pg_stat_activity where datname = 'hokito'")
        if set(names) <= {r[0] for r in rows}:
            return True
        time.sleep(0.05)
    return False


def ended(p, timeout=5):
    """(exit status, stderr) of p if it ended within timeout, else (None, '') after killing it."""
    try:
        _, err = p.communicate(timeout=timeout)
        return p.returncode, err
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return None, ""


def main():
    t = Tap()
    began = time.monotonic()
    pg = pgtmp.TempPostgres()
    pg.start()
    t.ok(True, "started in %.2f s" % (time.monotonic() - began))
    t.ok(pg.psql("select 1") == [("1",)], "select 1 as the superuser")
    t.ok(pg.psql("select null, '', 'a,b'") == [(None, "", "a,b")], "psql() rows: NULL is None")
    settings = pg.psql("select current_setting('listen_addresses'), current_setting('fsync'), "
                       "current_setting('unix_socket_directories')")
    t.ok(settings == [("", "on", pg.host)], "socket in its directory only, fsync on", settings)
    t.ok(os.path.exists(os.path.join(pg.host, ".s.PGSQL.%d" % pg.port)), "socket file there")
    t.ok(pg.uri.startswith("postgresql://hokito@/hokito?host=") and pg.port == 5432, pg.uri)

    owner = os.stat("/proc/%d" % postmaster_pid(pg)).st_uid
    if os.geteuid() == 0:
        t.ok(owner != 0, "as root: the server runs as uid %d, not root" % owner)
    else:
        t.ok(owner == os.geteuid(), "the server runs as ourselves")

    rc, out, err = sql(pg, pg.uri, "select current_user, current_database()")
    t.ok(rc == 0 and out == "hokito|hokito", "the URI logs in as hokito to hokito", err or out)
    rc, out, err = sql(pg, pg.uri, "create table kept (id int primary key, v text); "
                       "insert into kept values (1, 'committed')")
    t.ok(rc == 0, "hokito creates a table and a row through the URI", err)
    rc, out, err = sql(pg, pg.uri, "create database hokito_fresh")
    rc2, out2, err2 = sql(pg, pg.uri.replace("/hokito?", "/hokito_fresh?"),
                          "select current_database()")
    rc3, _, err3 = sql(pg, pg.uri, "drop database hokito_fresh")
    t.ok(rc == 0 and out2 == "hokito_fresh" and rc3 == 0,
         "hokito creates a database of its own (a test's fresh store), uses and drops it",
         err or err2 or err3)

    pid = postmaster_pid(pg)
    pg.stop("immediate")
    t.ok(gone(pid) and not pg.running(), "stop('immediate'): the server is gone")
    began = time.monotonic()
    pg.start()
    rc, out, err = sql(pg, pg.uri, "select v from kept where id = 1")
    t.ok(rc == 0 and out == "committed",
         "after the crash and a start (%.2f s) the committed row is there" %
         (time.monotonic() - began), err or out)
    t.ok("automatic recovery in progress" in pg.log(), "the start recovered from the WAL",
         pg.log()[-2000:])

    a = sleeper(pg, "sleeper")
    if t.ok(wait_sessions(pg, ["sleeper"]), "a second session waits in pg_sleep(30)"):
        t.ok(pg.terminate("someone-else") == 0 and a.poll() is None,
             "terminate('someone-else') leaves it alone")
        began = time.monotonic()
        n = pg.terminate("sleeper")
        rc, err = ended(a)
        t.ok(n == 1 and rc not in (None, 0) and "terminat" in err,
             "terminate('sleeper') ends it: psql fails after %.2f s" % (time.monotonic() - began),
             "terminated %d, psql status %s: %s" % (n, rc, err))
    else:
        ended(a, 0)
    b, c = sleeper(pg, "one"), sleeper(pg, "two")
    if t.ok(wait_sessions(pg, ["one", "two"]), "two more sessions wait"):
        n = pg.terminate()
        (rb, _), (rc_, _) = ended(b), ended(c)
        t.ok(n == 2 and rb not in (None, 0) and rc_ not in (None, 0),
             "terminate() ends both", "terminated %d, statuses %s %s" % (n, rb, rc_))
    else:
        ended(b, 0), ended(c, 0)
    t.ok(pg.psql("select 1") == [("1",)], "the server still answers")

    pg.restart()
    rc, out, err = sql(pg, pg.uri, "select count(*) from kept")
    t.ok(rc == 0 and out == "1", "restart(): the row is still there", err or out)

    where, data, pid = pg.dir, pg.data, postmaster_pid(pg)
    t.ok(processes_in(where), "the server's processes work in its directory")
    began = time.monotonic()
    pg.close()
    t.ok(not os.path.exists(where), "close() (%.2f s) removes the directory" %
         (time.monotonic() - began))
    t.ok(gone(pid) and not processes_in(where), "close() leaves no server process",
         processes_in(where))
    r = subprocess.run([os.path.join(pg.bindir, "pg_ctl"), "status", "-D", data],
                       capture_output=True, text=True, timeout=20)
    t.ok(r.returncode != 0, "pg_ctl status: no server (status %d)" % r.returncode)
    pg.close()
    t.ok(True, "close() twice is harmless")

    where = None
    try:
        with pgtmp.TempPostgres(password="p w:@/x") as pw:
            where = pw.dir
            rc, out, err = sql(pw, pw.uri, "select current_user")
            t.ok(rc == 0 and out == "hokito", "with a password: the URI carries it", err)
            rc, out, err = sql(pw, pw.uri.replace(":p%20w%3A%40%2Fx@", "@"), "select 1")
            t.ok(rc != 0 and "password" in err, "without it the login is refused", err)
            raise KeyError("a failing test")
    except KeyError:
        pass
    t.ok(where and not os.path.exists(where), "a failed `with` block removes its directory")

    child = ("import os, subprocess, sys; print(os.environ['PGHOST']); "
             "r = subprocess.run(['%s', '-X', '-At', os.environ['HOKITO_TEST_PG_URI'], '-c', "
             "'select current_user'], capture_output=True, text=True); "
             "print(r.stdout.strip(), flush=True); sys.exit(7)" % pg.psql_path)
    r = subprocess.run([sys.executable, PGTMP, "run", "--", sys.executable, "-c", child],
                       capture_output=True, text=True, timeout=60)
    lines = r.stdout.split()
    t.ok(r.returncode == 7 and lines[1:] == ["hokito"],
         "pgtmp.py run: the command logs in by HOKITO_TEST_PG_URI, its status 7 is returned",
         r.stdout + r.stderr)
    t.ok(lines and not os.path.exists(lines[0]), "pgtmp.py run: the directory is gone after it")
    t.done()


if __name__ == "__main__":
    main()
