// Titles in the player's language. The server sends them in Chinese: the title by silver
// (称号, the 丽水 ladder of app/store/ranks.py) and the 湖州 level (级别,
// app/rules/variants/huzhou.py LEVELS); English mode shows the English name of each (the
// table of names is i18n.js's, which the settlement's base uses too).

export { titleName } from "./i18n.js";
