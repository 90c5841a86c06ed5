// The rules pages: show the half in the language the table asked for (?lang=en|cz).
"use strict";
const lang = new URLSearchParams(location.search).get("lang") === "en" ? "en" : "cs";
document.documentElement.lang = lang;
for (const s of document.querySelectorAll("section[lang]")) s.hidden = s.lang !== lang;
