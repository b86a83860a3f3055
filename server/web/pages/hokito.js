/*
 * hokito.js: what every page of hokitod shares: the connection to /ws (the protocol of
 * PROTOCOL.md, one JSON line per text frame), the session token kept in this tab's
 * sessionStorage (never in a URL or a cookie), reconnection with resume, logging in to an account
 * (register, hello with a password: only over https or from a loopback address, as the server
 * takes them) and out, and small helpers that put text into the page only as text
 * (textContent), never as HTML.
 */
"use strict";

const Hokito = (() => {
	const TOKEN_KEY = "hokito.token";
	const NAME_KEY = "hokito.name";

	/* The name this browser plays under: the one given last, or a guest name made once. */
	function playerName() {
		let n = localStorage.getItem(NAME_KEY);
		if (!n) {
			n = "guest-" + Math.floor(1000 + Math.random() * 9000);
			localStorage.setItem(NAME_KEY, n);
		}
		return n;
	}

	function setPlayerName(n) {
		localStorage.setItem(NAME_KEY, n);
	}

	/*
	 * Whether this page may send a password: the server takes one over TLS, or over plain ws from
	 * a loopback address (PROTOCOL.md 4.4). The page checks it before the server does, so that a
	 * password never leaves the browser in clear: https, or a host that is this machine.
	 */
	function passwordSafe() {
		if (location.protocol === "https:")
			return true;
		const h = location.hostname.replace(/^\[|\]$/g, "");
		return h === "localhost" || h.endsWith(".localhost") || h === "::1" ||
		       /^127\.\d+\.\d+\.\d+$/.test(h);
	}

	const INSECURE = "This page is not https and its server is not this machine: a password " +
	                 "would cross the network in clear, so the page does not send it. Open the " +
	                 "https address of this server to log in or register.";

	/* The words of a refused login or registration, for its form. */
	const LOGIN_WORDS = {
		wrong_password: "wrong name or password",
		account_closed: "this account is closed",
		insecure_transport: INSECURE,
		name_taken: "this name is taken (or looks like one that is)",
		name_reserved: "this name is reserved",
		weak_password: null, /* the server's text says which rule it broke */
		in_game: "finish or leave your game first",
	};

	function loginWords(r) {
		const w = LOGIN_WORDS[r.code];
		let s = w || r.text || r.code;
		if (r.code === "login_throttled" && r.retry_ms)
			s = "too many attempts: try again in " + Math.ceil(r.retry_ms / 1000) + " s";
		return s;
	}

	/* An element with text (never HTML) and attributes. */
	function el(tag, attrs, ...children) {
		const e = document.createElement(tag);
		for (const [k, v] of Object.entries(attrs || {})) {
			if (k === "class")
				e.className = v;
			else if (k.startsWith("on"))
				e.addEventListener(k.slice(2), v);
			else if (v !== null && v !== undefined && v !== false)
				e.setAttribute(k, v === true ? "" : String(v));
		}
		for (const c of children)
			if (c !== null && c !== undefined)
				e.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
		return e;
	}

	/* How a player object (7.1) reads: "alice 1623", "bob (guest)", "rob [bot] 1710". */
	function playerLabel(p) {
		if (!p)
			return "(empty seat)";
		let s = p.name;
		if (p.kind === "guest")
			s += " (guest)";
		else if (p.kind === "bot")
			s += " [bot]";
		else if (p.kind === "computer")
			s += " (computer)";
		if (p.rating)
			s += " " + p.rating;
		return s;
	}

	/*
	 * One connection to /ws that comes back by itself: on a close it reconnects (1 s, doubling
	 * to 16 s) and says hello again with its token, which resumes the session (4.3). handlers:
	 * onwelcome(welcome, resumed), onmessage(m), onstatus(text).
	 */
	class Conn {
		constructor(handlers) {
			this.h = handlers;
			this.nextId = 1;
			this.pending = new Map();
			this.delay = 1000;
			this.closedByUs = false;
			this.open();
		}

		url() {
			return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
		}

		open() {
			this.status("connecting...");
			const ws = new WebSocket(this.url());
			this.ws = ws;
			/* a socket replaced by reopen() is heard no more */
			ws.addEventListener("open", () => ws === this.ws && this.hello());
			ws.addEventListener("message", (ev) => ws === this.ws && this.receive(ev.data));
			ws.addEventListener("close", (ev) => ws === this.ws && this.lost(ev));
		}

		status(text) {
			if (this.h.onstatus)
				this.h.onstatus(text);
		}

		/*
		 * Log in to an account (a new connection, whose hello has the password), or register
		 * one (this session's register: a guest's session becomes the account's). Resolves with
		 * null when done, or the words of the refusal; a refused login goes back to the session
		 * it came from.
		 */
		login(name, password, register) {
			if (!passwordSafe())
				return Promise.resolve(INSECURE);
			if (register) {
				return this.request({type: "register", name: name, password: password})
				        .then((r) => {
					        if (r.type !== "ok")
						        return loginWords(r);
					        this.me = Object.assign({}, this.me, {name: name, kind: "account"});
					        this.status("connected as " + playerLabel(this.me));
					        if (this.h.onwelcome)
						        this.h.onwelcome({player: this.me}, true);
					        return null;
				        });
			}
			return new Promise((resolve) => {
				this.credentials = {name: name, password: password, done: resolve};
				this.reopen();
			});
		}

		/* Log out: this tab forgets the account's session and comes back as a guest. */
		logout() {
			sessionStorage.removeItem(TOKEN_KEY);
			this.reopen();
		}

		/* A new connection at once (the old one's close does not reconnect by itself). */
		reopen() {
			const old = this.ws;
			this.ws = null;
			this.fail();
			old.close(1000);
			this.open();
		}

		/* The requests still waiting for their replies get an error: their connection is gone. */
		fail() {
			for (const resolve of this.pending.values())
				resolve({type: "error", code: "closed", text: "the connection closed"});
			this.pending.clear();
		}

		hello() {
			const hello = {type: "hello", protocol: 1, name: playerName()};
			const token = sessionStorage.getItem(TOKEN_KEY);
			const cred = this.credentials;
			this.credentials = null;
			if (cred) {
				hello.name = cred.name;
				hello.password = cred.password;
			} else if (token) {
				hello.token = token;
			}
			this.request(hello).then((w) => {
				if (cred) {
					/* a refused login: the session of before goes on (a hello may be retried) */
					cred.done(w.type === "welcome" ? null : loginWords(w));
					if (w.type !== "welcome") {
						this.hello();
						return;
					}
				}
				if (w.type === "error" && w.code === "bad_token") {
					sessionStorage.removeItem(TOKEN_KEY);
					this.hello();
					return;
				}
				if (w.type === "error" && w.code === "name_taken" && !token) {
					setPlayerName(playerName() + "-" + Math.floor(Math.random() * 90 + 10));
					this.hello();
					return;
				}
				if (w.type !== "welcome") {
					this.status("refused: " + (w.text || w.code));
					return;
				}
				this.delay = 1000;
				sessionStorage.setItem(TOKEN_KEY, w.token);
				this.me = w.player;
				this.status("connected as " + playerLabel(w.player));
				if (this.h.onwelcome)
					this.h.onwelcome(w, w.resumed);
			});
		}

		receive(data) {
			let m;
			try {
				m = JSON.parse(data);
			} catch (e) {
				return;
			}
			if (m.id !== undefined && this.pending.has(m.id)) {
				const resolve = this.pending.get(m.id);
				this.pending.delete(m.id);
				resolve(m);
			}
			if (this.h.onmessage)
				this.h.onmessage(m);
		}

		lost(ev) {
			this.fail();
			if (this.credentials) { /* a login whose connection was lost: it did not happen */
				this.credentials.done("the connection was lost: try again");
				this.credentials = null;
			}
			if (this.closedByUs)
				return;
			this.status("connection lost; reconnecting in " + this.delay / 1000 + " s");
			setTimeout(() => this.open(), this.delay);
			this.delay = Math.min(this.delay * 2, 16000);
		}

		/* Send a request with a fresh id; resolves with its reply (ok, error, or the answer). */
		request(obj) {
			const id = this.nextId++;
			obj = Object.assign({}, obj, {id: id});
			return new Promise((resolve) => {
				this.pending.set(id, resolve);
				if (this.ws && this.ws.readyState === WebSocket.OPEN)
					this.ws.send(JSON.stringify(obj));
				else
					resolve({type: "error", code: "closed", text: "not connected"});
			});
		}
	}

	/* Squares: a1 = 0 ... f6 = 35 (FORMATS.md). */
	const FILES = "abcdef";

	function squareName(i) {
		return FILES[i % 6] + String(Math.floor(i / 6) + 1);
	}

	function squareIndex(name) {
		return FILES.indexOf(name[0]) + 6 * (Number(name[1]) - 1);
	}

	/* The 36 cells of a position (FORMATS.md: rank 6 first, file a first), a1 first. */
	function positionCells(position) {
		const rows = position.split(" ")[0].split("/");
		const cells = new Array(36);
		rows.forEach((row, r) => {
			row.split(",").forEach((cell, f) => {
				cells[(5 - r) * 6 + f] = cell;
			});
		});
		return cells;
	}

	/* A HOKITO stack ("w1b3") as its pawns, bottom first: [{colour:"w", value:1}, ...]. */
	function stackPawns(cell) {
		const out = [];
		if (cell === "-")
			return out;
		for (let i = 0; i + 1 < cell.length; i += 2)
			out.push({colour: cell[i], value: Number(cell[i + 1])});
		return out;
	}

	const COLOUR = {b: "black", w: "white", p: "pink"};

	/* What stands on a square, in words, for its accessible name. */
	function cellWords(kind, cell) {
		if (cell === "-" || cell === undefined)
			return "empty";
		if (kind === "hokito") {
			const pawns = stackPawns(cell);
			const top = pawns[pawns.length - 1];
			let s = COLOUR[top.colour] + " " + top.value;
			if (pawns.length > 1)
				s += " on top, " + pawns.length + " high: " +
				     pawns.map((p) => COLOUR[p.colour] + " " + p.value).join(", ");
			return s;
		}
		if (cell === "X" || cell === "O")
			return "totem " + cell;
		return COLOUR[cell[0]] + " " + cell[1];
	}

	return {Conn, el, playerLabel, playerName, setPlayerName, passwordSafe, squareName, squareIndex,
	        positionCells, stackPawns, cellWords, COLOUR};
})();
