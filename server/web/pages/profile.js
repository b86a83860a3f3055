/*
 * profile.js: a player's page, /@/NAME: the account's ratings by game and its last rated games
 * (the protocol's profile request on /ws).
 */
"use strict";

(() => {
	const H = Hokito, el = H.el;
	const $ = (id) => document.getElementById(id);
	const name = decodeURIComponent(location.pathname.replace(/^\/@\//, ""));

	document.addEventListener("DOMContentLoaded", () => {
		$("name").textContent = name;
		document.title = name + " - hokito";
		const conn = new H.Conn({
			onwelcome: () => conn.request({type: "profile", name: name}).then((r) => {
				if (r.type === "error") {
					$("notice").textContent = r.text;
					return;
				}
				$("name").textContent = H.playerLabel(r.player) + (r.banned ? " (banned)" : "");
				const kinds = Object.keys(r.ratings);
				$("ratings").replaceChildren(...kinds.map((k) => {
					const x = r.ratings[k];
					return el("li", {}, k.toUpperCase() + ": " + x.display + ", " + x.games +
					          " rated games (" + x.wins + " won, " + x.draws + " drawn, " +
					          x.losses + " lost)");
				}));
				if (kinds.length === 0)
					$("ratings").append(el("li", {}, "no rated game yet"));
				$("recent").replaceChildren(...r.recent.map((e) => el("li", {},
				        el("a", {href: "/g/" + encodeURIComponent(e.game)}, e.game), " " +
				        e.kind.toUpperCase())));
			}),
			onstatus: (t) => ($("conn").textContent = t),
		});
	});
})();
