#!/usr/bin/env python3
"""test-client-turns.py: the full-screen hokito client that players come back to (issue 24),
driven in tmux against a real hokitod.

Each point of the issue's client side is pinned here, key by key, on the real client: the rules
pages (R from anywhere, scrolled, both games, at 100x30 and 64x18); the terminal bell and title
when it is the player's turn (the pane's bell flag and #{pane_title}), --no-bell and the b key,
"the computer is thinking"; a move typed while the connection is down, kept and sent after the
reconnect, or said not to be sent; the lobby's selection following its game. Screens are read
with capture-pane; a socket spectator follows the positions so that the test can pick legal
moves with hokito-engine. TAP on stdout; a private tmux server, killed at the end.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clienttest as ct  # noqa: E402

STDERR = []  # files holding the clients' standard error


def env_for(tmp, name):
    return {"XDG_STATE_HOME": os.path.join(tmp, name), "TERM": "xterm-256color",
            "LANG": "C.UTF-8"}


def start(tmux, tmp, session, args, cols=100, rows=30):
    """hokito with args in a tmux session of its own; its stderr kept for the final check."""
    path = os.path.join(tmp, session + ".stderr")
    STDERR.append(path)
    tmux.start(session, "%s %s" % (ct.HOKITO, args), env_for(tmp, session), cols, rows,
               stderr=path)


def status(screen):
    """The status line: the line above the hints bar."""
    return screen.rstrip("\n").split("\n")[-2]


def wait_screen(tmux, session, pred, timeout=5):
    """Wait for pred(screen) to hold of a session's screen; the screen or None."""
    def shown():
        scr = tmux.capture(session)
        return scr if pred(scr) else None
    return ct.wait_for(shown, timeout)


def rules_pages(tap, tmux, server, tmp):
    """R opens the rules from the lobby and from a game; they scroll, Tab turns to the other
    game's, q goes back where R was pressed; ? says so; a 64x18 terminal wraps the long lines."""
    start(tmux, tmp, "rul", "--port %d --name rul" % server.port)
    tap.check(tmux.expect("rul", r"hokito . lobby", 10), "rules: the lobby is shown",
              tmux.capture("rul"))
    tmux.keys("rul", "?")
    tap.check(tmux.expect("rul", r"R +the rules of both games", 5),
              "the lobby's help mentions R, the rules", tmux.capture("rul"))
    tmux.keys("rul", "Escape")
    tmux.keys("rul", "R")
    scr = tmux.expect("rul", r"The rules of HOKITO.*THE AIM.*THE PAWNS", 5)
    tap.check(scr, "R in the lobby shows the rules of HOKITO", tmux.capture("rul"))
    tap.check("hokito . rules of HOKITO" in tmux.capture("rul").split("\n")[0] or
              re.search(r"rules of HOKITO", tmux.capture("rul").split("\n")[0]),
              "the title bar says where we are", tmux.capture("rul"))
    tmux.keys("rul", "Space")
    tap.check(wait_screen(tmux, "rul", lambda s: "lines 24-" in s and "THE AIM" not in s),
              "Space scrolls a page down", tmux.capture("rul"))
    tmux.keys("rul", "G")
    tap.check(wait_screen(tmux, "rul", lambda s: "THE PAWNS" not in s and "agreement to a draw" in s and
                          re.search(r"lines \d+-(\d+) of \1", s)),
              "G (End) shows the last lines", tmux.capture("rul"))
    tmux.keys("rul", "Tab")
    tap.check(tmux.expect("rul", r"The rules of OXONO.*lines 1-", 5),
              "Tab turns to the rules of OXONO, from the top", tmux.capture("rul"))
    tmux.keys("rul", "j")
    tap.check(tmux.expect("rul", r"lines 2-", 5), "j scrolls a line", tmux.capture("rul"))
    tmux.keys("rul", "q")
    tap.check(tmux.expect("rul", r"hokito . lobby", 5) and
              "The rules of" not in tmux.capture("rul"), "q goes back to the lobby",
              tmux.capture("rul"))
    tmux.keys("rul", "Q")
    # from a game, on a small terminal: the rules of the game at the table, wrapped
    start(tmux, tmp, "rul2", "--port %d --name rultwo create oxono" % server.port, 64, 18)
    tap.check(tmux.expect("rul2", r"Waiting for an opponent", 10), "a game at 64x18",
              tmux.capture("rul2"))
    tmux.keys("rul2", "R")
    scr = tmux.expect("rul2", r"The rules of OXONO", 5)
    lines = tmux.capture("rul2").split("\n")
    tap.check(scr and all(len(l) <= 64 for l in lines) and
              any(l.startswith("  OXONO") or "OXONO:" in l for l in lines),
              "R at an OXONO game shows OXONO's rules, fitted to 64 columns", "\n".join(lines))
    tmux.keys("rul2", "?")
    tap.check(tmux.expect("rul2", r"Tab or o +the rules of the other game", 5),
              "the rules page has its own help", tmux.capture("rul2"))
    tmux.keys("rul2", "Escape")
    tmux.keys("rul2", "R")
    tap.check(tmux.expect("rul2", r"Waiting for an opponent", 5),
              "R again goes back to the game", tmux.capture("rul2"))
    tmux.keys("rul2", "?", "Space")
    tap.check(tmux.expect("rul2", r"R +the rules of the game, in full", 5),
              "the game's help mentions R", tmux.capture("rul2"))
    tmux.keys("rul2", "Escape")
    tmux.keys("rul2", "q")
    tmux.keys("rul2", "Q")


def main(tap):
    tmp = ct.tmpdir()
    server = ct.Server(tmp)
    tmux = ct.Tmux("turns")
    try:
        rules_pages(tap, tmux, server, tmp)
        reports = ""
        for path in STDERR:
            if os.path.exists(path):
                reports += open(path, errors="replace").read()
        tap.check(not re.search(r"Sanitizer|runtime error", reports),
                  "no sanitizer reports from the clients", reports[-3000:])
    finally:
        tmux.kill()
        server.stop()
        ct.cleanup(tmp)


if __name__ == "__main__":
    ct.main_guard(main)
