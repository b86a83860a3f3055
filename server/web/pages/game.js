/*
 * game.js: the page of one game, /g/ID: the board (SVG, one focusable control per square, named
 * by its coordinate and what stands on it), both players, the clocks, the move list, whose turn it
 * is, the chat, and the buttons of a player (resign, draw, abort, rematch). It follows the game
 * through the protocol's events on /ws; a player moves by choosing a piece and one of the targets
 * its your_turn lists (the page knows no rules: the legal moves come from the server).
 */
"use strict";

(() => {
	const H = Hokito, el = H.el;
	const gameId = decodeURIComponent(location.pathname.replace(/^\/g\//, ""));
	const SEATS = {hokito: ["black", "white"], oxono: ["pink", "black"]};
	const SVGNS = "http://www.w3.org/2000/svg";
	const $ = (id) => document.getElementById(id);
	let g = null;           /* the game as the events built it (a state, then each event) */
	let legal = [];         /* your_turn's moves, for the position of legalSeq */
	let picked = [];        /* the squares chosen so far for the move being made */
	let focus = 0;          /* the square that has the keyboard focus */
	let clockAt = 0;        /* when the clocks were last set (performance.now()) */
	let conn;

	function svg(tag, attrs, text) {
		const e = document.createElementNS(SVGNS, tag);
		for (const [k, v] of Object.entries(attrs || {}))
			e.setAttribute(k, String(v));
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	/* The squares a move played touched, to show it. */
	function lastSquares(move) {
		return move ? (move.match(/[a-f][1-6]/g) || []).map((q) => H.squareIndex(q)) : null;
	}

	/* The squares a move is made of, in the order they are chosen. */
	function moveSteps(move) {
		if (g.kind === "hokito") {
			const [from, to] = move.split("-");
			return [H.squareIndex(from), H.squareIndex(to)];
		}
		/* OXONO: "Xc5+c6": the totem's square, its new square, the pawn's square */
		const totem = g.cells.indexOf(move[0]);
		return [totem, H.squareIndex(move.slice(1, 3)), H.squareIndex(move.slice(4, 6))];
	}

	function candidates() {
		if (!myTurn())
			return [];
		return legal.filter((m) => {
			const s = moveSteps(m);
			return picked.every((sq, i) => s[i] === sq);
		});
	}

	function myTurn() {
		return g && g.you !== "spectator" && g.to_move === g.you && g.status === "live" &&
		       legal.length > 0;
	}

	/* A square chosen (a click, or Enter on it). */
	function choose(sq) {
		const next = candidates().filter((m) => moveSteps(m)[picked.length] === sq);
		if (next.length === 0) {
			picked = [];
			const again = candidates().filter((m) => moveSteps(m)[0] === sq);
			if (again.length > 0)
				picked = [sq];
			drawBoard();
			return;
		}
		picked.push(sq);
		const done = next.find((m) => moveSteps(m).length === picked.length);
		if (done) {
			picked = [];
			legal = [];
			play(done);
		}
		drawBoard();
	}

	function play(move) {
		say("playing " + move);
		conn.request({type: "move", move: move}).then((r) => {
			if (r.type === "error")
				say("refused: " + r.text);
		});
	}

	function say(text) {
		$("notice").textContent = text;
	}

	/* Draw the board from g.cells, the move being made and the targets it has. */
	function drawBoard() {
		const board = $("board");
		const cand = candidates();
		const starts = new Set(cand.map((m) => moveSteps(m)[picked.length]));
		const last = g.moves.length ? g.last : null;
		const won = new Set(g.result && g.result.line ? g.result.line.map(H.squareIndex) : []);
		/* the square that has the focus keeps it through the redraw (keyboard play) */
		const hadFocus = board.contains(document.activeElement);
		board.replaceChildren();
		for (let sq = 0; sq < 36; sq++) {
			const file = sq % 6, rank = Math.floor(sq / 6);
			const flip = g.you === SEATS[g.kind][1];
			const x = (flip ? 5 - file : file) * 60, y = (flip ? rank : 5 - rank) * 60;
			const cell = g.cells[sq];
			const cls = ["sq", (file + rank) % 2 ? "light" : "dark"];
			if (picked.includes(sq))
				cls.push("picked");
			if (starts.has(sq))
				cls.push(picked.length ? "target" : "movable");
			if (last && last.includes(sq))
				cls.push("last");
			if (won.has(sq))
				cls.push("win");
			let name = H.squareName(sq) + ", " + H.cellWords(g.kind, cell);
			if (won.has(sq))
				name += ", in the winning line";
			if (starts.has(sq))
				name += picked.length ? ", a target" : ", can move";
			const grp = svg("g", {class: cls.join(" "), role: "button", "data-sq": H.squareName(sq),
			                      "data-cell": cell,
			                      "aria-label": name, tabindex: sq === focus ? 0 : -1});
			grp.append(svg("rect", {x: x, y: y, width: 60, height: 60, class: "cell"}));
			drawCell(grp, cell, x, y);
			grp.addEventListener("click", () => {
				focus = sq;
				choose(sq);
			});
			grp.addEventListener("keydown", (ev) => key(ev, sq));
			board.append(grp);
		}
		for (let f = 0; f < 6; f++)
			board.append(svg("text", {x: f * 60 + 4, y: 356, class: "coord"},
			                 "abcdef"[g.you === SEATS[g.kind][1] ? 5 - f : f]));
		const keep = board.querySelector('[tabindex="0"]');
		if (keep && hadFocus)
			keep.focus();
	}

	function drawCell(grp, cell, x, y) {
		if (cell === "-")
			return;
		if (g.kind === "hokito") {
			const pawns = H.stackPawns(cell);
			const top = pawns[pawns.length - 1];
			for (let i = 0; i < pawns.length - 1; i++)
				grp.append(svg("circle", {cx: x + 30, cy: y + 34 - 2 * i, r: 22,
				                          class: "pawn under " + H.COLOUR[pawns[i].colour]}));
			const cy = y + 34 - 2 * (pawns.length - 1);
			grp.append(svg("circle", {cx: x + 30, cy: cy, r: 22, class: "pawn " +
			                          H.COLOUR[top.colour]}));
			grp.append(svg("text", {x: x + 30, y: cy + 7, class: "value " + H.COLOUR[top.colour]},
			               String(top.value)));
			if (pawns.length > 1)
				grp.append(svg("text", {x: x + 54, y: y + 14, class: "height"}, "x" + pawns.length));
			return;
		}
		if (cell === "X" || cell === "O") {
			grp.append(svg("rect", {x: x + 10, y: y + 10, width: 40, height: 40, rx: 6,
			                        class: "totem"}));
			grp.append(svg("text", {x: x + 30, y: y + 40, class: "symbol totem-symbol"}, cell));
			return;
		}
		grp.append(svg("circle", {cx: x + 30, cy: y + 30, r: 22, class: "pawn " +
		                          H.COLOUR[cell[0]]}));
		grp.append(svg("text", {x: x + 30, y: y + 38, class: "symbol " + H.COLOUR[cell[0]]},
		               cell[1].toUpperCase()));
	}

	/* Keyboard: the arrows move between squares (as drawn), Enter or Space chooses. */
	function key(ev, sq) {
		const flip = g.you === SEATS[g.kind][1] ? -1 : 1;
		const moves = {ArrowLeft: -1 * flip, ArrowRight: 1 * flip, ArrowUp: 6 * flip,
		               ArrowDown: -6 * flip};
		if (ev.key === "Enter" || ev.key === " ") {
			ev.preventDefault();
			choose(sq);
			return;
		}
		if (ev.key === "Escape") {
			picked = [];
			drawBoard();
			return;
		}
		if (!(ev.key in moves))
			return;
		ev.preventDefault();
		const n = sq + moves[ev.key];
		if (n < 0 || n > 35 || (Math.abs(moves[ev.key]) === 1 &&
		                         Math.floor(n / 6) !== Math.floor(sq / 6)))
			return;
		focus = n;
		drawBoard();
		$("board").querySelector('[tabindex="0"]').focus();
	}

	const KIND_WORDS = {guest: "guest", account: "account", bot: "bot", computer: "computer"};

	/* A seat's player in words: name, kind, rating as it took its seat (7.1), and its state. */
	function seatLine(seat) {
		const p = g.players[seat];
		let s = seat + ": ";
		if (!p)
			s += "(empty seat)";
		else
			s += p.name + " (" + (KIND_WORDS[p.kind] || p.kind) +
			     (p.rating ? ", rating " + p.rating : "") + ")";
		if (p && seat === g.you)
			s += ", you";
		if (p && p.connected === false)
			s += " (away)";
		if (g.kind === "hokito" && g.scores)
			s += ", score " + g.scores[seat];
		if (g.kind === "oxono" && g.reserves && g.reserves[seat])
			s += ", left x " + g.reserves[seat].x + ", o " + g.reserves[seat].o;
		return s;
	}

	function clockText(ms) {
		ms = Math.max(0, ms);
		const s = Math.ceil(ms / 1000);
		return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
	}

	function drawClocks() {
		if (!g || !g.clock) {
			$("clocks").textContent = "";
			return;
		}
		const spent = performance.now() - clockAt;
		$("clocks").textContent = SEATS[g.kind].map((seat) => {
			let ms = g.clock.remaining[seat];
			if (g.clock.running === seat && g.status === "live")
				ms -= spent;
			return seat + " " + clockText(ms);
		}).join("   ");
	}

	function statusText() {
		if (g.status === "open")
			return "waiting for a second player";
		if (g.status === "adjourned")
			return "adjourned: waiting for both players";
		if (g.status === "finished" && g.result) {
			const r = g.result;
			if (r.result === "win")
				return r.winner + " won (" + r.reason +
				       (r.line ? ": " + r.line.join(" ") : "") + ")" +
				       (g.you === r.winner ? ": you won" : "");
			if (r.result === "draw")
				return "a draw (" + r.reason + ")";
			return "aborted (" + r.reason + ")";
		}
		if (myTurn())
			return "your turn";
		return (g.to_move || "nobody") + " to move";
	}

	/* The rating change of a rated game's end, both seats, as game_over gave it. */
	function ratingText() {
		if (!g.ratings)
			return "";
		return SEATS[g.kind].filter((s) => g.ratings[s]).map((s) => {
			const r = g.ratings[s], d = Math.round(r.after - r.before);
			return (g.players[s] ? g.players[s].name : s) + " " + r.before_display + " -> " +
			       r.after_display + " (" + (d >= 0 ? "+" : "") + d + ")";
		}).join(", ");
	}

	function draw() {
		if (!g)
			return;
		document.title = (myTurn() ? "Your turn - " : "") + g.kind.toUpperCase() + " " + g.id +
		                 " - hokito";
		$("title").textContent = g.kind.toUpperCase() + " " + g.id + (g.rated ? ", rated" : "") +
		                         (g.clock ? ", clock " + g.clock.control : "") +
		                         (g.private ? ", private" : "");
		$("invite").textContent = g.code && g.status === "open"
		                                  ? "Invite a friend: " + location.origin + "/g/" + g.code
		                                  : "";
		$("players").replaceChildren(...SEATS[g.kind].map((s) => el("li", {}, seatLine(s))));
		$("status").textContent = statusText();
		$("result").textContent = g.status === "finished" ? ratingText() : "";
		const list = $("moves");
		list.replaceChildren(...g.moves.map((m) => el("li", {}, m)));
		drawButtons();
		drawBoard();
		drawClocks();
	}

	function button(label, req) {
		return el("button", {type: "button", onclick: () => conn.request(req).then((r) => {
			if (r.type === "error")
				say(label + ": " + r.text);
		})}, label);
	}

	function drawButtons() {
		const b = [];
		const seated = g.you !== "spectator";
		const other = seated ? SEATS[g.kind].find((s) => s !== g.you) : null;
		if (!seated && g.status === "open" && SEATS[g.kind].some((s) => !g.players[s]))
			b.push(button("Join", {type: "join", game: g.id}));
		if (seated && g.status === "live") {
			b.push(button("Resign", {type: "resign"}));
			if (g.draw_offer === other) {
				b.push(button("Accept draw", {type: "draw_accept"}));
				b.push(button("Decline draw", {type: "draw_decline"}));
			} else if (!g.draw_offer) {
				b.push(button("Offer a draw", {type: "draw_offer"}));
			}
			if (g.ply < 2)
				b.push(button("Abort", {type: "abort"}));
		}
		if (seated && g.status === "finished" && g.result && g.result.result !== "aborted") {
			if (g.rematch_offer === other) {
				b.push(button("Accept rematch", {type: "rematch"}));
				b.push(button("Decline rematch", {type: "rematch_decline"}));
			} else if (!g.rematch_offer) {
				b.push(button("Rematch", {type: "rematch"}));
			}
		}
		$("actions").replaceChildren(...b);
	}

	function chatLine(who, text) {
		const log = $("chat");
		log.append(el("li", {}, el("strong", {}, who), ": ", text));
		while (log.children.length > 100)
			log.firstChild.remove();
		log.scrollTop = log.scrollHeight;
	}

	/*
	 * The sound of the player's turn. Browsers let a page play sound only after a gesture of its
	 * user on it, so the one AudioContext is made (or resumed) at the first click or key.
	 */
	let audio = null;

	function unlockAudio() {
		if (!window.AudioContext)
			return;
		if (!audio)
			audio = new AudioContext();
		if (audio.state === "suspended")
			audio.resume();
	}

	function beep() {
		if (!$("sound").checked || !audio)
			return;
		try {
			const a = audio, o = a.createOscillator(), v = a.createGain();
			o.frequency.value = 660;
			v.gain.value = 0.08;
			o.connect(v).connect(a.destination);
			o.start();
			o.stop(a.currentTime + 0.15);
		} catch (e) {
			/* no sound: nothing to tell */
		}
	}

	function setClock(clocks, running) {
		if (!g.clock)
			return;
		if (clocks)
			g.clock.remaining = Object.assign({}, clocks);
		g.clock.running = running;
		clockAt = performance.now();
	}

	/* Each event and notice of this game changes g as the protocol says (section 6). */
	const on = {
		state(m) {
			g = Object.assign({}, m, {id: m.game});
			g.last = lastSquares(m.moves[m.moves.length - 1]);
			legal = [];
			picked = [];
			clockAt = performance.now();
			$("chat").replaceChildren();
			for (const c of m.chat || [])
				chatLine(H.playerLabel(c.player), c.text);
			for (const c of m.kibitz || [])
				chatLine(H.playerLabel(c.player) + " (spectator)", c.text);
		},
		seated(m) {
			g.players[m.seat] = Object.assign({connected: true}, m.player);
		},
		started(m) {
			g.status = "live";
			g.to_move = m.to_move;
			g.players = Object.assign({}, m.players);
			for (const s of SEATS[g.kind])
				if (g.players[s])
					g.players[s].connected = true;
			g.cells = H.positionCells(m.position);
			if (m.clocks)
				setClock(m.clocks, m.to_move);
		},
		moved(m) {
			g.cells = H.positionCells(m.position);
			g.moves.push(m.move);
			g.ply = m.ply;
			g.to_move = m.to_move;
			if (m.scores)
				g.scores = m.scores;
			if (g.kind === "oxono" && g.reserves) {
				const sym = m.move[0].toLowerCase();
				g.reserves[m.by][sym]--;
			}
			g.last = lastSquares(m.move);
			if (m.by === g.you)
				say("");
			$("said").textContent = m.by + " played " + m.move + (m.to_move ? ", " +
			                        (m.to_move === g.you ? "your turn" : m.to_move + " to move")
			                                                              : "");
			setClock(m.clocks, m.to_move);
			legal = [];
			picked = [];
		},
		game_over(m) {
			g.status = "finished";
			g.to_move = null;
			g.result = {result: m.result, winner: m.winner, reason: m.reason, scores: m.scores,
			            line: m.line};
			if (m.scores)
				g.scores = m.scores;
			if (m.clocks)
				setClock(m.clocks, null);
			g.draw_offer = null;
			legal = [];
			g.ratings = m.ratings || null;
			if (m.ratings && g.you !== "spectator" && m.ratings[g.you]) {
				const r = m.ratings[g.you];
				say("your rating: " + r.before_display + " -> " + r.after_display);
			}
		},
		your_turn(m) {
			legal = m.moves;
			picked = [];
			beep();
		},
		presence(m) {
			if (g.players[m.seat])
				g.players[m.seat].connected = m.connected;
		},
		spectators(m) {
			g.spectators = m.spectators;
		},
		draw_offered(m) {
			g.draw_offer = m.by;
		},
		draw_declined() {
			g.draw_offer = null;
		},
		chat(m) {
			chatLine(H.playerLabel(m.player), m.text);
		},
		kibitz(m) {
			chatLine(H.playerLabel(m.player) + " (spectator)", m.text);
		},
		adjourned() {
			g.status = "adjourned";
		},
		resumed() {
			g.status = "live";
		},
		rematch_offered(m) {
			g.rematch_offer = m.by;
		},
		rematch_declined() {
			g.rematch_offer = null;
		},
		rematch_started(m) {
			say("the rematch is game " + m.new_game);
			history.replaceState(null, "", "/g/" + encodeURIComponent(m.new_game));
		},
	};

	function onmessage(m) {
		if (m.type === "state" && m.game) {
			if (!m.private && m.game !== gameId && location.pathname !== "/g/" + m.game)
				history.replaceState(null, "", "/g/" + encodeURIComponent(m.game));
			on.state(m);
			draw();
			return;
		}
		if (m.type === "bye") {
			say("the server says: " + (m.text || m.reason));
			return;
		}
		if (!g || m.game !== g.id || !(m.type in on))
			return;
		on[m.type](m);
		draw();
	}

	/* /g/ID of a game, or /g/CODE: a private game's invite, whose open seat the link offers. */
	const isCode = !/^g[0-9]+$/.test(gameId);

	function onwelcome(w) {
		if (w.game === gameId || (g && w.game === g.id))
			return; /* resumed at this game: its state comes by itself (4.3) */
		if (isCode) {
			if (w.resumed && w.game)
				return; /* back at its own game: its state comes by itself */
			conn.request({type: "join", code: gameId}).then((r) => {
				if (r.type === "error") /* its seats are taken: watch it */
					conn.request({type: "watch", code: gameId}).then((v) => {
						if (v.type === "error")
							say("cannot open this invite: " + v.text);
					});
			});
			return;
		}
		conn.request({type: "watch", game: gameId}).then((r) => {
			if (r.type === "error")
				say("cannot watch " + gameId + ": " + r.text);
		});
	}

	document.addEventListener("DOMContentLoaded", () => {
		$("sound").checked = localStorage.getItem("hokito.sound") !== "off";
		document.addEventListener("pointerdown", unlockAudio, true);
		document.addEventListener("keydown", unlockAudio, true);
		$("sound").addEventListener("change", () =>
			localStorage.setItem("hokito.sound", $("sound").checked ? "on" : "off"));
		$("say").addEventListener("submit", (ev) => {
			ev.preventDefault();
			const text = $("line").value;
			if (!text.trim())
				return;
			conn.request({type: "say", text: text}).then((r) => {
				if (r.type === "error")
					say("chat: " + r.text);
				else
					$("line").value = "";
			});
		});
		conn = new H.Conn({onwelcome: onwelcome, onmessage: onmessage,
		                   onstatus: (t) => ($("conn").textContent = t)});
		setInterval(drawClocks, 250);
	});
})();
