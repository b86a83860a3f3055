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
- The server stops and starts again on the same store and port mid game: the player's page
  reconnects by itself, resumes its session with its token and plays on.
- At 400 px wide the game page needs no sideways scrolling and the board fits.
Screenshots of the lobby and of each game are kept in meson-logs/screenshots/ (or
$HOKITO_SCREENSHOTS).
"""
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "ref"))
import rules_ref  # noqa: E402
from serverlib import Server, Tap  # noqa: E402

try:
    import selenium  # noqa: F401
except ImportError:  # Debian's python3-selenium, when python3 is not Debian's own
    sys.path.append("/usr/lib/python3/dist-packages")
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import (NoAlertPresentException,  # noqa: E402
                                        StaleElementReferenceException)
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

t = Tap()
HOST = "127.0.0.1"
SHOTS = os.environ.get("HOKITO_SCREENSHOTS", os.path.join("meson-logs", "screenshots"))
os.makedirs(SHOTS, exist_ok=True)
DRIVERS = []


def browser(width=1000, height=900):
    o = Options()
    o.add_argument("--headless=new")
    o.add_argument("--no-sandbox")
    o.add_argument("--disable-gpu")
    o.add_argument("--window-size=%d,%d" % (width, height))
    chromium = "/usr/bin/chromium"
    if os.path.exists(chromium):
        o.binary_location = chromium
    d = webdriver.Chrome(options=o)
    d.set_page_load_timeout(20)
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
        shot(d, "narrow-oxono")
        d.quit()
        DRIVERS.remove(d)
        a.close()
    finally:
        srv.stop()


try:
    t.run("a spectator's page follows a game of two TCP clients", test_spectator)
    t.run("two windows play HOKITO by clicks", two_windows, "hokito")
    t.run("two windows play OXONO by clicks", two_windows, "oxono")
    t.run("player text is text", test_text_only)
    t.run("a private game's invite link", test_invite)
    t.run("the page resumes after a restart", test_restart)
    t.run("a phone's width", test_narrow)
finally:
    for d in DRIVERS:
        try:
            d.quit()
        except Exception:
            pass
t.done()
