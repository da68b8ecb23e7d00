// Titles in the player's language. The server sends them in Chinese: the title by silver
// (称号, the 丽水 ladder of app/store/ranks.py) and the 湖州 level (级别,
// app/rules/variants/huzhou.py LEVELS); English mode shows a gloss of each.

import { currentLang } from "./i18n.js";

const GLOSSES = {
  // by silver
  菜鸟: "Rookie", 生手: "Novice", 赌客: "Gambler", 赌棍: "Hustler", 赌鬼: "Addict",
  老手: "Veteran", 高人: "Expert", 老千: "Card sharp", 千王: "King of sharps",
  赌王: "Gambling king", 赌神: "Gambling god", 赌圣: "Gambling sage", 赌仙: "Gambling immortal",
  万赌之王: "King of all gamblers",
  // the 湖州 levels
  科员: "Clerk", 助科: "Assistant section chief", 副科: "Deputy section chief", 科长: "Section chief",
  助处: "Assistant division chief", 副处: "Deputy division chief", 处长: "Division chief",
  助局: "Assistant bureau chief", 副局: "Deputy bureau chief", 局长: "Bureau chief",
  助市: "Assistant mayor", 副市: "Deputy mayor", 市长: "Mayor", 助省: "Assistant governor",
  副省: "Deputy governor", 省长: "Governor", 麻将王: "Mahjong king",
};

// A title in the current language; an unknown one as the server sent it.
export function titleName(title) {
  if (!title) return "";
  return currentLang() === "en" ? GLOSSES[title] ?? title : title;
}
