/*
 * lobby.js: the lobby, /: the games of the lobby (join an open one, watch a live one), a new game
 * (kind, clock, a person or the computer and its level, private, rated), quick pairing (rated for
 * an account), the name to play under as a guest, logging in to an account, registering one and
 * logging out, and both kinds' leaderboards (the ranked players, then apart and marked the
 * provisional ones, as the terminal client shows them). Everything goes through the protocol on
 * /ws; a game opened here goes on at /g/ID, where the same session (its token, in this tab)
 * resumes it.
 */
"use strict";

(() => {
	const H = Hokito, el = H.el;
	const $ = (id) => document.getElementById(id);
	let conn;
	let quick = false; /* a quick pairing asked for: its game's state opens the game */

	function say(text) {
		$("notice").textContent = text;
	}

	function gameLink(id, label) {
		return el("a", {href: "/g/" + encodeURIComponent(id)}, label);
	}

	function row(s) {
		const seats = Object.keys(s.players);
		const players = seats.map((k) => k + ": " + H.playerLabel(s.players[k])).join(", ");
		let status = s.status;
		if (s.status === "live")
			status += ", " + s.ply + " moves, " + s.spectators + " watching";
		if (s.result)
			status = s.result.result === "win" ? s.result.winner + " won" : s.result.result;
		const open = s.status === "open" && seats.some((k) => !s.players[k]);
		return el("tr", {},
		          el("td", {}, s.kind.toUpperCase() + " " + s.game + (s.clock ? " " + s.clock : "") +
		                       (s.rated ? " rated" : "")),
		          el("td", {}, players), el("td", {}, status),
		          el("td", {}, gameLink(s.game, open ? "join" : "watch")));
	}

	/* The account part: who this tab is, and the forms that fit (a guest's name and the login). */
	function drawMe() {
		const me = conn.me;
		const account = me && (me.kind === "account" || me.kind === "bot");
		$("me").textContent = !me ? "not connected" : account
		                                  ? "Logged in as " + me.name + "."
		                                  : "Playing as the guest " + me.name + ".";
		$("logout").hidden = !account;
		$("who").hidden = account;
		$("login").hidden = account;
		$("rated").disabled = !account || $("opponent").value === "computer";
		if (!account)
			$("rated").checked = false;
		$("rated-why").textContent =
		        !account ? "(rated games are for accounts: log in or register to play one)"
		        : $("opponent").value === "computer" ? "(games against the computer are never rated)"
		                                             : "";
	}

	function account(register) {
		const name = $("account").value.trim(), pw = $("password").value;
		const notice = $("account-notice");
		if (!name || !pw) {
			notice.textContent = "give an account name and a password";
			return;
		}
		if (!H.passwordSafe()) { /* said before anything is sent */
			conn.login(name, pw, register).then((words) => (notice.textContent = words));
			return;
		}
		notice.textContent = register ? "registering..." : "logging in...";
		conn.login(name, pw, register).then((words) => {
			notice.textContent = words ||
			                     (register ? "registered and logged in as " : "logged in as ") + name;
			if (!words)
				$("password").value = "";
			drawMe();
		});
	}

	/* One leaderboard: the ranked players, then the provisional ones apart, below, marked. */
	function ladderRow(e, provisional) {
		const name = e.player.name;
		return el("tr", {class: provisional ? "provisional" : null},
		          el("td", {}, provisional ? "-" : String(e.rank)),
		          el("td", {}, el("a", {href: "/@/" + encodeURIComponent(name)}, name),
		             e.player.kind === "bot" ? " [bot]" : null),
		          el("td", {}, e.display + (provisional ? " provisional" : "")),
		          el("td", {}, String(e.games)));
	}

	function ladder(kind) {
		const body = $("ladder-" + kind).tBodies[0];
		Promise.all([conn.request({type: "leaderboard", kind: kind, limit: 10}),
		             conn.request({type: "leaderboard", kind: kind, limit: 10, provisional: true})])
		        .then(([ranked, prov]) => {
			        if (ranked.type !== "leaderboard")
				        return;
			        const rows = ranked.entries.map((e) => ladderRow(e, false));
			        if (rows.length === 0)
				        rows.push(el("tr", {}, el("td", {colspan: 4}, "No one ranked yet: a " +
				                                  "rating is ranked once its deviation is 110 " +
				                                  "or less, after enough rated games and " +
				                                  "opponents.")));
			        if (prov.type === "leaderboard" && prov.entries.length > 0) {
				        rows.push(el("tr", {class: "apart"},
				                     el("th", {colspan: 4, scope: "rowgroup"},
				                        prov.next ? "Provisional, not ranked yet, the best:"
				                                  : "Provisional, not ranked yet:")));
				        rows.push(...prov.entries.map((e) => ladderRow(e, true)));
			        }
			        body.replaceChildren(...rows);
		        });
	}

	function refresh() {
		conn.request({type: "list"}).then((r) => {
			if (r.type !== "games")
				return;
			$("games").replaceChildren(...r.games.map(row));
			if (r.games.length === 0)
				$("games").append(el("tr", {}, el("td", {colspan: 4}, "no game yet: create one")));
		});
	}

	function go(r) {
		if (r.type === "state")
			location.href = "/g/" + encodeURIComponent(r.private && r.code ? r.code : r.game);
		else if (r.type === "error")
			say(r.text);
	}

	document.addEventListener("DOMContentLoaded", () => {
		$("name").value = H.playerName();
		$("who").addEventListener("submit", (ev) => {
			ev.preventDefault();
			const n = $("name").value.trim();
			if (!n)
				return;
			H.setPlayerName(n);
			sessionStorage.removeItem("hokito.token"); /* a new name is a new session */
			location.reload();
		});
		$("create").addEventListener("submit", (ev) => {
			ev.preventDefault();
			const req = {type: "create", kind: $("kind").value, clock: $("clock").value,
			             private: $("private").checked};
			if ($("rated").checked && !$("rated").disabled)
				req.rated = true;
			if ($("opponent").value === "computer") {
				req.opponent = "computer";
				req.level = Number($("level").value);
			}
			conn.request(req).then(go);
		});
		$("quick").addEventListener("click", () => {
			quick = true;
			const req = {type: "quick", kind: $("kind").value, clock: $("clock").value};
			if ($("rated").checked && !$("rated").disabled)
				req.rated = true;
			say(req.rated ? "looking for a rated opponent..." : "looking for an opponent...");
			conn.request(req).then((r) => {
				if (r.type !== "ok")
					go(r);
			});
		});
		$("opponent").addEventListener("change", drawMe);
		$("login").addEventListener("submit", (ev) => {
			ev.preventDefault();
			account(false);
		});
		$("register").addEventListener("click", () => account(true));
		$("logout").addEventListener("click", () => {
			$("account-notice").textContent = "logged out";
			conn.logout();
		});
		conn = new H.Conn({
			onwelcome: (w) => {
				drawMe();
				ladder("hokito");
				ladder("oxono");
				if (w.game) {
					say("you are at game " + w.game + ": ");
					$("notice").append(gameLink(w.game, "go back to it"));
				}
				refresh();
			},
			onmessage: (m) => {
				if (quick && m.type === "state" && m.game)
					location.href = "/g/" + encodeURIComponent(m.game); /* quick paired */
			},
			onstatus: (t) => ($("conn").textContent = t),
		});
		setInterval(() => conn.ws && conn.ws.readyState === WebSocket.OPEN && conn.me && refresh(),
		            5000);
	});
})();
