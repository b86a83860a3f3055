/*
 * lobby.js: the lobby, /: the games of the lobby (join an open one, watch a live one), a new game
 * (kind, clock, a person or the computer and its level, private), quick pairing, and the name to
 * play under. Everything goes through the protocol on /ws; a game opened here goes on at /g/ID,
 * where the same session (its token, in this tab) resumes it.
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
			if ($("opponent").value === "computer") {
				req.opponent = "computer";
				req.level = Number($("level").value);
			}
			conn.request(req).then(go);
		});
		$("quick").addEventListener("click", () => {
			say("looking for an opponent...");
			quick = true;
			conn.request({type: "quick", kind: $("kind").value}).then((r) => {
				if (r.type !== "ok")
					go(r);
			});
		});
		conn = new H.Conn({
			onwelcome: (w) => {
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
		setInterval(() => conn.ws.readyState === WebSocket.OPEN && conn.me && refresh(), 5000);
	});
})();
