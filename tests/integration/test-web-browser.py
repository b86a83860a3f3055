#!/usr/bin/env python3
"""test-web-browser: hokitod's pages in a real headless Chromium (selenium, Debian's chromium,
chromium-driver and python3-selenium), against the real hokitod over loopback.

- A spectator's page (/g/ID, from a plain link) follows a HOKITO game played by two TCP clients:
  after every move its board (each square's cell) is the position the independent reference rules
  (tests/ref/rules_ref.py) reach by playing the same moves; each square is a control named by its
  coordinate and what stands on it; the move list and whose turn it is are text.
- Two browser windows play a whole HOKITO and a whole OXONO game against each other by clicks
  only (the lobby's create form, the lobby's join link, then a piece and its highlighted target),
  watched by a TCP spectator that sees the same game end.
- A private game: the creator's page shows its invite link (/g/CODE), the friend who opens it
  takes the open seat, the lobby does not list it.
- A player named `<img src=x onerror=alert(1)>` and such a chat line appear as text: no element,
  no alert.
- No page breaks its Content-Security-Policy: each page counts the CSP's refusals (the
  securitypolicyviolation events), and the lobby and the game pages have none.
- The server stops and starts again on the same store and port mid game: the player's page
  reconnects by itself, resumes its session with its token and plays on.
- At 400 px wide the lobby and the game page need no sideways scrolling and the board fits.
- Accounts from the lobby: register, log out, a wrong password refused in words, log in; a guest
  is not offered a rated game and is told why; a page whose host is neither this machine nor
  https refuses to send a password itself, with a message, and nothing reaches the server.
- A rated game between two logged-in pages (from the lobby's rated create form), its end showing
  both players' rating changes; the leaderboards of the lobby then list both players apart,
  below and marked provisional; rated quick pairing from two pages pairs them in a rated game.
- A browser plays the terminal client (the real hokito --plain in tmux) a whole OXONO game.
- An OXONO game won by a line: the page marks the line's squares (game_over's "line"), names them
  for a screen reader and says them.
- A browser plays the server's computer a whole HOKITO game with the keyboard alone (Tab, the
  arrows, Enter), its page title and sound telling it its turn, each move said for a screen
  reader, the clocks and whose turn it is text.
Screenshots of the lobby and of each game are kept in meson-logs/screenshots/ (or
$HOKITO_SCREENSHOTS).
"""
import os
import re
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "ref"))
import rules_ref  # noqa: E402
import clienttest as ct  # noqa: E402
from serverlib import Server, Tap  # noqa: E402

try:
    import selenium  # noqa: F401
except ImportError:  # Debian's python3-selenium, when python3 is not Debian's own
    sys.path.append("/usr/lib/python3/dist-packages")
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import (NoAlertPresentException,  # noqa: E402
                                        StaleElementReferenceException)
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

t = Tap()
HOST = "127.0.0.1"
SHOTS = os.environ.get("HOKITO_SCREENSHOTS", os.path.join("meson-logs", "screenshots"))
os.makedirs(SHOTS, exist_ok=True)
DRIVERS = []


# Every page counts what its Content-Security-Policy refused (an inline style, say).
CSP_SPY = """
window.cspRefused = [];
document.addEventListener("securitypolicyviolation",
                          (e) => window.cspRefused.push(e.violatedDirective + " " + e.blockedURI));
"""


def csp_refused(d):
    return d.execute_script("return window.cspRefused")


def browser(width=1000, height=900, args=()):
    o = Options()
    for a in args:
        o.add_argument(a)
    o.add_argument("--headless=new")
    o.add_argument("--no-sandbox")
    o.add_argument("--disable-gpu")
    o.add_argument("--window-size=%d,%d" % (width, height))
    chromium = "/usr/bin/chromium"
    if os.path.exists(chromium):
        o.binary_location = chromium
    d = webdriver.Chrome(options=o)
    d.set_page_load_timeout(20)
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_SPY})
    DRIVERS.append(d)
    return d


def shot(d, name):
    path = os.path.join(SHOTS, name + ".png")
    d.save_screenshot(path)
    print("# screenshot: %s" % os.path.abspath(path))


def until(fn, timeout=15, what="a condition"):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = fn()
            if last:
                return last
        except Exception as e:  # the page is being redrawn
            last = e
        time.sleep(0.05)
    raise TimeoutError("no %s within %ds (last: %r)" % (what, timeout, last))


def click(fn, what):
    """Find the element fn() returns and click it, again if the page redrew it meanwhile (a
    stale element): until(fn).click() could hold an element the page had just replaced."""
    until(lambda: fn().click() or True, what=what)


def web_server(*args, **kw):
    srv = Server("--listen-http", kw.pop("http", HOST + ":0"), *args, **kw)
    until(lambda: srv.http_port, what="HTTP port")
    return srv


def url(srv, path):
    return "http://%s:%d%s" % (HOST, srv.http_port, path)


def board_cells(d):
    """The 36 cells the page shows (data-cell), a1 first, and the squares' names."""
    cells, names = [None] * 36, [None] * 36
    for g in d.find_elements(By.CSS_SELECTOR, "#board g.sq"):
        sq = rules_ref.parse_square(g.get_attribute("data-sq"))
        cells[sq] = g.get_attribute("data-cell")
        names[sq] = g.get_attribute("aria-label")
    return cells, names


def move_count(d):
    return len(d.find_elements(By.CSS_SELECTOR, "#moves li"))


def no_alert(d):
    try:
        d.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def test_spectator():
    srv = web_server()
    try:
        a = srv.connect("alice")
        b = srv.connect("bob")
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black", "seed": 11})
        game = st["game"]
        b.request({"type": "join", "game": game})
        d = browser()
        d.get(url(srv, "/g/" + game))
        until(lambda: d.find_element(By.ID, "status").text == "black to move",
              what="the spectator's page")
        pos = rules_ref.hokito_parse(st["position"])
        mover, other = a, b
        matched, plies = True, 0
        for ply in range(1, 41):
            yt = mover.wait_for("your_turn")
            move = yt["moves"][len(yt["moves"]) // 2]
            r, _ = mover.request({"type": "move", "move": move})
            assert r["type"] == "ok", r
            pos = rules_ref.hokito_apply(pos, rules_ref.hokito_parse_move(pos, move))
            want = rules_ref.split_position(rules_ref.hokito_format(pos))[0]
            until(lambda: move_count(d) == ply, what="move %d on the page" % ply)
            cells, names = until(lambda: (lambda c: c if c[0] == want else None)(board_cells(d)),
                                 timeout=5, what="the board after move %d" % ply) or (None, None)
            if cells != want:
                matched = False
                break
            plies = ply
            if not rules_ref.hokito_moves(pos):
                break
            mover, other = other, mover
        t.ok(matched and plies >= 10,
             "the spectator's board is the reference rules' position after each of %d moves"
             % plies)
        names = board_cells(d)[1]
        t.ok(all(n and n.startswith(rules_ref.square_name(i) + ", ") for i, n in
                 enumerate(names)) and any(" high: " in n for n in names) or
             all(n.startswith(rules_ref.square_name(i) + ", ") for i, n in enumerate(names)),
             "each square is a control named by its coordinate and what stands on it",
             names[:4])
        t.ok(d.find_element(By.CSS_SELECTOR, '[data-sq="a1"]').get_attribute("role") == "button",
             "a square is a button for assistive technology")
        moves_text = d.find_element(By.ID, "moves").text.split("\n")
        t.ok(len(moves_text) == plies, "the move list is text", moves_text[:3])
        shot(d, "spectator-hokito")
        d.quit()
        DRIVERS.remove(d)
        a.close()
        b.close()
    finally:
        t.ok(srv.stop() == 0, "spectator: hokitod stops cleanly")


def click_square(d, css):
    """Click a square the page shows now with class css (the board is redrawn at every event,
    so each is found again right before its click). Returns its name, or None if there is none."""
    for _ in range(20):
        try:
            found = d.find_elements(By.CSS_SELECTOR, "#board g.sq" + css)
            if not found:
                return None
            g = found[len(found) // 2]
            name = g.get_attribute("data-sq")
            g.click()
            return name
        except StaleElementReferenceException:
            time.sleep(0.02)
    return None


def play_by_clicks(d, timeout=10):
    """If it is this page's turn, make a move by clicks: a movable square, then targets until
    the move is sent. Returns True if a move was made."""
    try:
        if d.find_element(By.ID, "status").text != "your turn":
            return False
    except StaleElementReferenceException:
        return False
    before = move_count(d)
    if click_square(d, ".movable") is None:
        return False
    for _ in range(3):
        if click_square(d, ".target") is None:
            break
        if move_count(d) > before:
            break
    until(lambda: move_count(d) > before, timeout=timeout, what="the move on the page")
    return True


def two_windows(kind):
    srv = web_server()
    try:
        one, two = browser(), browser()
        one.get(url(srv, "/"))
        until(lambda: "connected as" in one.find_element(By.ID, "conn").text,
              what="the lobby's connection")
        name = one.find_element(By.ID, "name")
        name.clear()
        name.send_keys("west")
        one.find_element(By.CSS_SELECTOR, "#who button").click()
        until(lambda: "west" in one.find_element(By.ID, "conn").text, what="the new name")
        Select(one.find_element(By.ID, "kind")).select_by_value(kind)
        one.find_element(By.CSS_SELECTOR, "#create button[type=submit]").click()
        until(lambda: "/g/" in one.current_url, what="the new game's page")
        game = one.current_url.rsplit("/", 1)[1]
        two.get(url(srv, "/"))
        link = until(lambda: two.find_element(By.LINK_TEXT, "join"), what="the join link")
        shot(two, "lobby-%s" % kind)
        link.click()
        until(lambda: "/g/" + game in two.current_url, what="the game page")
        click(lambda: two.find_element(By.XPATH, "//button[text()='Join']"),
              what="the Join button")
        spy = srv.connect("spy")
        spy.request({"type": "watch", "game": game})
        plies = 0
        deadline = time.time() + 240
        while time.time() < deadline and plies < 200:
            status = [w.find_element(By.ID, "status").text for w in (one, two)]
            if any(s.endswith(")") or "won" in s or "draw" in s for s in status):
                break
            moved = False
            for w in (one, two):
                if play_by_clicks(w):
                    plies += 1
                    moved = True
            if not moved:
                time.sleep(0.05)
        over = spy.wait_for("game_over", timeout=10)
        t.ok(over["result"] in ("win", "draw") and over["ply"] == plies,
             "two browser windows played a whole %s game by clicks (%d moves, %s)" %
             (kind.upper(), plies, over["reason"]), over)
        final = until(lambda: one.find_element(By.ID, "status").text, what="status")
        t.ok("won" in final or "draw" in final, "the page says how the game ended: " + final)
        if kind == "oxono":
            check_line(one, over)
        shot(one, "game-%s" % kind)
        for w in (one, two):
            w.quit()
            DRIVERS.remove(w)
        spy.close()
    finally:
        rc = srv.stop()
        t.ok(rc == 0, "%s by clicks: hokitod stops cleanly" % kind, (rc, "".join(srv.log[-15:])))


def test_text_only():
    srv = web_server()
    try:
        evil = "<img src=x onerror=alert(1)>"
        a = srv.connect(evil)
        st, _ = a.request({"type": "create", "kind": "hokito", "seat": "black"})
        d = browser()
        d.get(url(srv, "/g/" + st["game"]))
        until(lambda: evil in d.find_element(By.ID, "players").text, what="the evil name")
        a.request({"type": "say", "text": "<script>alert(2)</script><b>bold</b>"})
        until(lambda: "<script>alert(2)</script>" in d.find_element(By.ID, "chat").text,
              what="the chat line")
        d.get(url(srv, "/"))
        until(lambda: evil in d.find_element(By.ID, "games").text, what="the lobby's list")
        t.ok(no_alert(d) and not d.find_elements(By.TAG_NAME, "img") and
             not d.find_elements(By.CSS_SELECTOR, "#chat b"),
             "a name and a chat line of HTML are shown as text: no element, no alert")
        csp = d.execute_script("return document.querySelectorAll('script:not([src])').length")
        t.ok(csp == 0, "no inline script in the pages")
        t.ok(csp_refused(d) == [], "the lobby breaks nothing of its CSP", csp_refused(d))
        d.quit()
        DRIVERS.remove(d)
        a.close()
    finally:
        srv.stop()


def test_invite():
    """A private game: its creator's page shows the invite link; the friend who opens it takes
    the open seat by itself; the lobby does not list the game."""
    srv = web_server()
    try:
        one, two = browser(), browser()
        one.get(url(srv, "/"))
        until(lambda: "connected as" in one.find_element(By.ID, "conn").text, what="lobby")
        one.find_element(By.ID, "private").click()
        one.find_element(By.CSS_SELECTOR, "#create button[type=submit]").click()
        invite = until(lambda: one.find_element(By.ID, "invite").text, what="the invite")
        link = invite.split(": ", 1)[1]
        t.ok("/g/" in link and "/g/g" not in link, "the creator's page shows the invite link",
             invite)
        spy = srv.connect("spy")
        r, _ = spy.request({"type": "list"})
        t.ok(r["total"] == 0, "a private game is not listed", r)
        two.get(link)
        until(lambda: two.find_element(By.ID, "status").text in ("your turn", "black to move",
                                                                  "white to move"),
              what="the friend seated")
        t.ok(until(lambda: one.find_element(By.ID, "status").text != "waiting for a second "
                   "player", what="the game started"),
             "the friend who opens the invite takes the open seat: the game starts")
        shot(one, "invite-hokito")
        for w in (one, two):
            w.quit()
            DRIVERS.remove(w)
        spy.close()
    finally:
        srv.stop()


def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_restart():
    port = free_port()
    srv = web_server(http="%s:%d" % (HOST, port))
    db = srv.db
    try:
        tcp = srv.connect("tcp")
        st, _ = tcp.request({"type": "create", "kind": "hokito", "seat": "white"})
        game = st["game"]
        d = browser()
        d.get(url(srv, "/g/" + game))
        click(lambda: d.find_element(By.XPATH, "//button[text()='Join']"), what="Join")
        until(lambda: d.find_element(By.ID, "status").text == "your turn", what="our turn")
        play_by_clicks(d)
        token = tcp.token
        tcp.close()
        t.ok(srv.stop() == 0, "restart: the first hokitod stops")
        until(lambda: "reconnecting" in d.find_element(By.ID, "conn").text, what="the loss")
        srv = web_server("--db", db, http="%s:%d" % (HOST, port))
        tcp = srv.connect()
        tcp.request({"type": "hello", "protocol": 1, "name": "tcp", "token": token})
        until(lambda: "connected as" in d.find_element(By.ID, "conn").text, timeout=30,
              what="the page's reconnection")
        yt = tcp.wait_for("your_turn")
        r, _ = tcp.request({"type": "move", "move": yt["moves"][0]})
        t.ok(r["type"] == "ok", "the TCP player moves after the restart", r)
        until(lambda: d.find_element(By.ID, "status").text == "your turn",
              what="the page's turn after the restart")
        t.ok(play_by_clicks(d) and move_count(d) == 3,
             "the page resumed its session by itself and plays on after the restart")
        d.quit()
        DRIVERS.remove(d)
        tcp.close()
    finally:
        srv.stop()


def text_of(d, id_):
    return d.find_element(By.ID, id_).text


def lobby(d, srv, host=None):
    d.get(host + "/" if host else url(srv, "/"))
    until(lambda: "connected as" in text_of(d, "conn"), what="the lobby's connection")


def account_form(d, name, password, button):
    for id_, v in (("account", name), ("password", password)):
        f = d.find_element(By.ID, id_)
        f.clear()
        f.send_keys(v)
    d.find_element(By.ID, button).click()


def status_over(s):
    return " won (" in s or s.startswith("a draw")


def test_accounts():
    """Register, log out, a wrong password, log in; a rated game and its rating changes; the
    leaderboards; rated quick pairing."""
    srv = web_server("--allow-shared-address", "--rated-min-plies", "2")
    try:
        one, two = browser(), browser()
        for w in (one, two):
            lobby(w, srv)
        t.ok(not one.find_element(By.ID, "rated").is_enabled() and
             "rated games are for accounts" in text_of(one, "rated-why"),
             "a guest is not offered a rated game, and is told why", text_of(one, "rated-why"))
        account_form(one, "Ana_w", "tulip-garden-77", "register")
        until(lambda: text_of(one, "me") == "Logged in as Ana_w.", what="the registration")
        t.ok(one.find_element(By.ID, "rated").is_enabled() and
             one.find_element(By.ID, "logout").is_displayed() and
             not one.find_element(By.ID, "login").is_displayed() and
             text_of(one, "rated-why") == "",
             "registered from the page: logged in, rated offered, a Log out button")
        tcp = srv.connect()
        r, _ = tcp.request({"type": "hello", "protocol": 1, "name": "ana_w",
                            "password": "tulip-garden-77"})
        t.ok(r["type"] == "welcome" and r["player"]["kind"] == "account",
             "the account the page registered logs in over TCP", r)
        tcp.close()
        one.find_element(By.ID, "logout").click()
        until(lambda: text_of(one, "me").startswith("Playing as the guest"), what="the logout")
        t.ok("Ana_w" not in text_of(one, "conn") and
             not one.find_element(By.ID, "rated").is_enabled(),
             "logged out: a guest again", text_of(one, "conn"))
        account_form(one, "Ana_w", "not-the-password", "login-go")
        until(lambda: text_of(one, "account-notice") == "wrong name or password",
              what="the refusal")
        t.ok(text_of(one, "me").startswith("Playing as the guest"),
             "a wrong password: refused in words, still a guest")
        account_form(one, "Ana_w", "tulip-garden-77", "login-go")
        until(lambda: text_of(one, "me") == "Logged in as Ana_w.", what="the login")
        t.ok("connected as Ana_w" in text_of(one, "conn"), "logged in from the page")
        account_form(two, "Ben_w", "maple-river-88", "register")
        until(lambda: text_of(two, "me") == "Logged in as Ben_w.", what="the second account")

        # rated quick pairing from both pages (both new: 1500, paired at once)
        spy = srv.connect("spy")
        lobby(two, srv)
        for w in (one, two):
            w.find_element(By.ID, "rated").click()
        one.find_element(By.ID, "quick").click()
        until(lambda: "rated opponent" in text_of(one, "notice") or "/g/" in one.current_url,
              what="the rated pool")
        two.find_element(By.ID, "quick").click()
        until(lambda: "/g/" in one.current_url and "/g/" in two.current_url, what="the pairing")
        ga, gb = (w.current_url.rsplit("/", 1)[1] for w in (one, two))
        title = until(lambda: text_of(two, "title"), what="the title")
        r, _ = spy.request({"type": "list"})
        live = [g for g in r["games"] if g["game"] == ga]
        t.ok(ga == gb and ", rated" in title and live and live[0]["rated"] and
             live[0]["status"] == "live",
             "rated quick pairing from two pages: one rated game, live", (ga, gb, title, live))
        players = until(lambda: (lambda p: p if "Ben_w" in p and "Ana_w" in p else None)(
            text_of(one, "players")), what="both players")
        t.ok("Ana_w (account, rating 1500?)" in players and
             "Ben_w (account, rating 1500?)" in players,
             "both players shown with their kind and rating", players)
        plies = 0
        deadline = time.time() + 60
        while plies < 4 and time.time() < deadline:
            if not any(play_by_clicks(w) and True for w in (one, two)):
                time.sleep(0.05)
            plies = move_count(one)
        click(lambda: one.find_element(By.XPATH, "//button[text()='Resign']"), what="Resign")
        res = until(lambda: (lambda s: s if "Ben_w" in s else None)(text_of(one, "result")),
                    what="the rating change")
        other = until(lambda: text_of(two, "result"), what="the other page's result")
        t.ok(re.search(r"Ana_w 1500\? -> \d+\? \(-\d+\)", res) and
             re.search(r"Ben_w 1500\? -> \d+\? \(\+\d+\)", res) and other == res,
             "the end of a rated game shows both rating changes", (res, other))
        shot(one, "game-rated-hokito")

        # the leaderboards: nobody settled yet, both provisional, apart, below, marked
        lobby(one, srv)
        body = until(lambda: (lambda b: b if "Provisional" in b.text else None)(
            one.find_element(By.CSS_SELECTOR, "#ladder-hokito tbody")), what="the leaderboard")
        rows = [r.text for r in body.find_elements(By.TAG_NAME, "tr")]
        want, _ = spy.request({"type": "leaderboard", "kind": "hokito", "provisional": True})
        names = [e["player"]["name"] for e in want["entries"]]
        t.ok(rows[0].startswith("No one ranked yet") and
             rows[1] == "Provisional, not ranked yet:" and
             [r.split()[1] for r in rows[2:]] == names == ["Ben_w", "Ana_w"] and
             all(r.startswith("- ") and " provisional " in r for r in rows[2:]),
             "the HOKITO leaderboard: the provisional players apart, below, marked, in the "
             "server's order", rows)
        t.ok(one.find_element(By.CSS_SELECTOR, "#ladder-oxono tbody").text.startswith(
             "No one ranked yet"), "the OXONO leaderboard: nobody yet")
        t.ok(csp_refused(one) == [] and csp_refused(two) == [],
             "the lobby and the game page with an account break nothing of their CSP",
             (csp_refused(one), csp_refused(two)))
        shot(one, "lobby-leaderboards")

        # a rated game from the create form
        lobby(one, srv)
        one.find_element(By.ID, "rated").click()
        one.find_element(By.CSS_SELECTOR, "#create button[type=submit]").click()
        until(lambda: "/g/" in one.current_url, what="the rated game's page")
        game = one.current_url.rsplit("/", 1)[1]
        r, _ = spy.request({"type": "list"})
        t.ok(", rated" in until(lambda: text_of(one, "title"), what="the title") and
             [g["rated"] for g in r["games"] if g["game"] == game] == [True],
             "the create form's rated game: rated, and the page says so", text_of(one, "title"))
        spy.close()
        for w in (one, two):
            w.quit()
            DRIVERS.remove(w)
    finally:
        t.ok(srv.stop() == 0, "accounts: hokitod stops cleanly")


def test_insecure_page():
    """A page whose host is not this machine, over plain http: the password is not sent."""
    port = free_port()
    srv = web_server(http="%s:%d" % (HOST, port))
    try:
        d = browser(args=["--host-resolver-rules=MAP hokito.test 127.0.0.1"])
        lobby(d, srv, host="http://hokito.test:%d" % port)
        account_form(d, "Cleo_w", "lantern-moss-41", "register")
        notice = until(lambda: text_of(d, "account-notice"), what="the notice")
        t.ok(notice.startswith("This page is not https and its server is not this machine") and
             text_of(d, "me").startswith("Playing as the guest"),
             "not https, not this machine: the page refuses to send the password, and says why",
             notice)
        account_form(d, "Cleo_w", "lantern-moss-41", "login-go")
        time.sleep(0.5)
        tcp = srv.connect()
        r, _ = tcp.request({"type": "hello", "protocol": 1, "name": "Cleo_w",
                            "password": "lantern-moss-41"})
        t.ok(r["type"] == "error" and r["code"] == "wrong_password" and
             not any("Cleo_w" in line for line in srv.log),
             "nothing of it reached the server: no such account", r)
        tcp.close()
        d.quit()
        DRIVERS.remove(d)
    finally:
        srv.stop()


def check_line(d, over):
    """An OXONO game won by a line: the page marks the game_over's squares, and names them."""
    if over["reason"] != "line":
        t.ok(over["reason"] == "full" and "line" not in over, "a full board: no line", over)
        return
    marked = until(lambda: sorted(g.get_attribute("data-sq") for g in
                                  d.find_elements(By.CSS_SELECTOR, "#board g.sq.win")),
                   what="the winning line")
    named = all("in the winning line" in d.find_element(
        By.CSS_SELECTOR, '[data-sq="%s"]' % q).get_attribute("aria-label") for q in marked)
    cells = {q: d.find_element(By.CSS_SELECTOR, '[data-sq="%s"]' % q).get_attribute("data-cell")
             for q in marked}
    same = [c[0] for c in cells.values()], [c[1] for c in cells.values()]
    t.ok(len(over["line"]) >= 4 and marked == sorted(over["line"]) and named and
         (len(set(same[0])) == 1 or len(set(same[1])) == 1 or len(marked) > 4) and
         " ".join(over["line"]) in text_of(d, "status"),
         "the winning line is marked on the board, named, and said", (over["line"], cells))


def pane(tmux, session):
    return tmux.run("capture-pane", "-p", "-J", "-S", "-5000", "-t", session,
                    check=False).stdout


def test_terminal():
    """A browser plays the terminal client (hokito --plain, in tmux) a whole OXONO game."""
    srv = web_server()
    tmux = ct.Tmux("web")
    tmp = ct.tmpdir()
    try:
        d = browser()
        lobby(d, srv)
        Select(d.find_element(By.ID, "kind")).select_by_value("oxono")
        d.find_element(By.CSS_SELECTOR, "#create button[type=submit]").click()
        until(lambda: "/g/" in d.current_url, what="the new game's page")
        game = d.current_url.rsplit("/", 1)[1]
        tmux.start("tee", "%s --plain --port %d --name tee join %s" % (ct.HOKITO, srv.port,
                                                                       game),
                   {"XDG_STATE_HOME": tmp, "NO_COLOR": "1"}, cols=220, rows=50)
        t.ok(tmux.expect("tee", r"joined game %s" % game, 10),
             "the terminal client joins the browser's game", pane(tmux, "tee"))
        spy = srv.connect("spy")
        spy.request({"type": "watch", "game": game})
        turns = 0
        page_moves = term_moves = 0
        deadline = time.time() + 180
        while time.time() < deadline:
            if status_over(text_of(d, "status")):
                break
            if play_by_clicks(d):
                page_moves += 1
                continue
            text = pane(tmux, "tee")
            if text.count("your turn (") > turns:
                turns = text.count("your turn (")
                asked = text.count("position: ")
                tmux.literal("tee", "position")
                tmux.keys("tee", "Enter")
                text = until(lambda: (lambda x: x if x.count("position: ") > asked else None)(
                    pane(tmux, "tee")), what="the terminal's position")
                pos = re.findall(r"position: (.*)", text)[-1].strip()
                moves = ct.legal_moves("oxono", pos)
                tmux.literal("tee", moves[len(moves) // 2])
                tmux.keys("tee", "Enter")
                term_moves += 1
                until(lambda: move_count(d) == page_moves + term_moves,
                      what="the terminal's move on the page")
                continue
            time.sleep(0.05)
        over = spy.wait_for("game_over", timeout=10)
        final = text_of(d, "status")
        t.ok(over["result"] in ("win", "draw") and over["ply"] == page_moves + term_moves and
             page_moves >= 2 and term_moves >= 2,
             "a browser played the terminal client a whole OXONO game (%d + %d moves, %s)" %
             (page_moves, term_moves, over["reason"]), over)
        t.ok(status_over(final) and tmux.expect("tee", r"game over", 10),
             "both the page and the terminal say the game is over: " + final, pane(tmux, "tee"))
        check_line(d, over)
        t.ok(csp_refused(d) == [], "the game page breaks nothing of its CSP", csp_refused(d))
        shot(d, "game-oxono-terminal")
        d.quit()
        DRIVERS.remove(d)
        spy.close()
    finally:
        tmux.kill()
        ct.cleanup(tmp)
        srv.stop()


KEYS_FOR = {(1, 0): Keys.ARROW_RIGHT, (-1, 0): Keys.ARROW_LEFT, (0, 1): Keys.ARROW_UP,
            (0, -1): Keys.ARROW_DOWN}


def focused_square(d):
    return d.execute_script("const e = document.activeElement;"
                            " return e && e.getAttribute('data-sq');")


def focus_board(d):
    """Tab until a square of the board has the focus (bounded)."""
    for _ in range(60):
        if focused_square(d):
            return True
        ActionChains(d).send_keys(Keys.TAB).perform()
    return False


def key_to(d, target, flipped):
    """Move the focus to the square named target with the arrows only, then press Enter."""
    for _ in range(12):
        at = focused_square(d)
        if at == target:
            break
        df = ord(target[0]) - ord(at[0])
        dr = int(target[1]) - int(at[1])
        step = (1 if df > 0 else -1, 0) if df else (0, 1 if dr > 0 else -1)
        if flipped:
            step = (-step[0], -step[1])
        ActionChains(d).send_keys(KEYS_FOR[step]).perform()
    if focused_square(d) != target:
        return False
    ActionChains(d).send_keys(Keys.ENTER).perform()
    return True


def play_by_keys(d):
    """A move with the keyboard alone: the arrows to a movable square, Enter, then to a target,
    Enter, until the move is sent. Returns True if a move was made."""
    if text_of(d, "status") != "your turn" or not focus_board(d):
        return False
    flipped = d.find_element(By.CSS_SELECTOR, '[data-sq="a1"] rect').get_attribute("x") == "300"
    before = move_count(d)
    css = ".movable"
    for _ in range(3):
        found = [g.get_attribute("data-sq")
                 for g in d.find_elements(By.CSS_SELECTOR, "#board g.sq" + css)]
        if not found or not key_to(d, found[len(found) // 2], flipped):
            return False
        if move_count(d) > before or until(lambda: move_count(d) > before or
                                           d.find_elements(By.CSS_SELECTOR, "#board g.target"),
                                           timeout=5, what="targets"):
            if move_count(d) > before:
                return True
        css = ".target"
        if not focused_square(d):
            return False  # the focus was lost in the redraw
    return until(lambda: move_count(d) > before, timeout=5, what="the move")


SOUND_SPY = """
window.hokitoBeeps = [];
const make = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
    window.hokitoBeeps.push(this.state);
    return make.call(this);
};
"""


def test_computer_keyboard():
    """A browser plays the server's computer a whole HOKITO game with the keyboard alone."""
    srv = web_server()
    try:
        d = browser()
        lobby(d, srv)
        Select(d.find_element(By.ID, "clock")).select_by_value("15+10")
        Select(d.find_element(By.ID, "opponent")).select_by_value("computer")
        Select(d.find_element(By.ID, "level")).select_by_visible_text("1")
        d.find_element(By.CSS_SELECTOR, "#create button[type=submit]").click()
        until(lambda: "/g/" in d.current_url, what="the game against the computer")
        game = d.current_url.rsplit("/", 1)[1]
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SOUND_SPY})
        d.refresh()  # the same session resumes at its game, the sound spy in place
        until(lambda: text_of(d, "status") in ("your turn", "black to move", "white to move"),
              what="the game's page")
        players = text_of(d, "players")
        t.ok(re.search(r"computer \(level 1\) \(computer\)", players) and "(guest" in players,
             "both players shown with their kind", players)
        clocks = d.find_element(By.ID, "clocks")
        t.ok(clocks.get_attribute("role") == "timer" and
             re.fullmatch(r"black \d+:\d\d\s+white \d+:\d\d", clocks.text),
             "the clocks are text (a timer for screen readers)", clocks.text)
        live = [d.find_element(By.ID, i).get_attribute("aria-live") for i in ("status", "said")]
        t.ok(live == ["polite", "polite"], "whose turn it is and each move are live text", live)
        spy = srv.connect("spy")
        spy.request({"type": "watch", "game": game})
        mine, titles, said, sound_off_at = 0, [], set(), None
        deadline = time.time() + 180
        while time.time() < deadline:
            status = text_of(d, "status")
            if status_over(status):
                break
            if status == "your turn":
                titles.append(d.title)
                if mine == 3 and sound_off_at is None:
                    sound_off_at = len(d.execute_script("return window.hokitoBeeps"))
                    d.find_element(By.ID, "sound").click()  # the sound turned off
                if not play_by_keys(d):
                    break
                mine += 1
                said.add(text_of(d, "said"))
                continue
            time.sleep(0.05)
        over = spy.wait_for("game_over", timeout=20)
        beeps = d.execute_script("return window.hokitoBeeps")
        t.ok(over["result"] in ("win", "draw") and mine >= 5 and status_over(text_of(d, "status")),
             "a browser played the computer a whole HOKITO game with the keyboard alone (%d moves "
             "of its own, %s)" % (mine, over["reason"]), (mine, over))
        t.ok(titles and all(x.startswith("Your turn - HOKITO ") for x in titles) and
             not d.title.startswith("Your turn"),
             "the page title says when it is the player's turn", (titles[:2], d.title))
        t.ok(sound_off_at is not None and sound_off_at >= 2 and
             all(b == "running" for b in beeps) and len(beeps) == sound_off_at,
             "a sound on the player's turn (once a key was pressed), none once turned off",
             (sound_off_at, beeps))
        t.ok(any(re.fullmatch(r"(black|white) played [a-f][1-6]-[a-f][1-6](, your turn)?", x)
                 for x in said),
             "each move is said for a screen reader", sorted(said)[:3])
        shot(d, "game-hokito-computer")
        spy.close()
        d.quit()
        DRIVERS.remove(d)
    finally:
        srv.stop()


def test_narrow():
    srv = web_server()
    try:
        a = srv.connect("narrow")
        st, _ = a.request({"type": "create", "kind": "oxono", "seat": "pink"})
        d = browser(400, 900)
        # a phone's viewport: headless Chromium keeps windows at least 500 px wide
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                          {"width": 400, "height": 860, "deviceScaleFactor": 1, "mobile": True})
        d.get(url(srv, "/g/" + st["game"]))
        until(lambda: "waiting" in d.find_element(By.ID, "status").text, what="the page")
        wide = d.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth,"
            " document.getElementById('board').getBoundingClientRect().right]")
        t.ok(wide[1] == 400 and wide[0] <= wide[1] and wide[2] <= wide[1],
             "at 400 px wide: no sideways scrolling, the board fits", wide)
        board = d.find_element(By.CSS_SELECTOR, '[data-sq="a1"]')
        d.execute_script("arguments[0].focus()", board)
        board.send_keys(Keys.ARROW_RIGHT)
        focused = d.execute_script("return document.activeElement.getAttribute('data-sq')")
        t.ok(focused == "b1", "the arrows move the focus between squares", focused)
        # a live game at 400 px: the page takes the open seat, and plays by taps
        click(lambda: d.find_element(By.XPATH, "//button[text()='Join']"), what="Join")
        yt = a.wait_for("your_turn")
        a.request({"type": "move", "move": yt["moves"][0]})
        until(lambda: text_of(d, "status") == "your turn", what="the page's turn")
        t.ok(play_by_clicks(d), "at 400 px a move is made by taps on the board")
        fits = d.execute_script(
            "const w = window.innerWidth; return [document.documentElement.scrollWidth <= w]"
            ".concat(['#actions button', '#line', '#clocks', '#players', '#sound'].map((q) =>"
            " [...document.querySelectorAll(q)].every((e) => e.getBoundingClientRect().right"
            " <= w && e.getBoundingClientRect().width > 0)))")
        t.ok(all(fits), "at 400 px the live game's buttons, clocks, players and chat fit", fits)
        shot(d, "narrow-oxono")
        lobby(d, srv)
        wide = d.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth]")
        t.ok(wide[0] <= wide[1] == 400, "at 400 px the lobby needs no sideways scrolling", wide)
        shot(d, "narrow-lobby")
        d.quit()
        DRIVERS.remove(d)
        a.close()
    finally:
        srv.stop()


ONLY = os.environ.get("HOKITO_WEB_ONLY")  # one test's function name, to run it alone


def run(name, fn, *args):
    if not ONLY or ONLY == fn.__name__:
        t.run(name, fn, *args)


try:
    run("a spectator's page follows a game of two TCP clients", test_spectator)
    run("two windows play HOKITO by clicks", two_windows, "hokito")
    run("two windows play OXONO by clicks", two_windows, "oxono")
    run("player text is text", test_text_only)
    run("a private game's invite link", test_invite)
    run("the page resumes after a restart", test_restart)
    run("a phone's width", test_narrow)
    run("accounts, a rated game, the leaderboards", test_accounts)
    run("no password in clear", test_insecure_page)
    run("a browser plays the terminal client", test_terminal)
    run("a browser plays the computer by the keyboard", test_computer_keyboard)
finally:
    for d in DRIVERS:
        try:
            d.quit()
        except Exception:
            pass
t.done()
