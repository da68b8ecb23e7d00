// Why each payment of a hand was paid, in one sentence (统包 who fed whom three 吃, 财神分 how
// many wilds each held, 犯枪 the winning discard, 逃跑, 被跟, 误打财神, 抓庄, 抢杠), read from the
// hand_ended event alone: the table's settlement and the replay's say the same words.

import { fmt, h } from "./dom.js";
import { ledgerReason, t } from "./i18n.js";

// A penalty charged with the hand apart from its transfers (`penalties`, in silver: a seat
// away at the end on its third disconnect in 24 hours), with its cause: one line at the
// table's settlement (the live hand_ended) and in the replay (the stored result).
export function penaltyItem(x, nameOf) {
  return h("li", { dataset: { reason: x.reason, seat: x.seat } },
    t("penalty_paid", { payer: nameOf(x.seat), silver: fmt(x.silver), reason: ledgerReason(x.reason) }),
    h("small", { class: "cause" }, t("cause_disconnect", { payer: nameOf(x.seat) })));
}

function chowsFed(ended, feeder, eater) {
  const melds = (ended.melds && ended.melds[eater]) || [];
  return melds.filter((m) => m.meld === "chow" && m.from_seat === feeder).length;
}

// Per seat, the wilds (财神) in its concealed tiles at the end (a wild is never melded).
export function wildsHeld(ended, wild) {
  return ended.hands.map((tiles) => (wild ? tiles.filter((code) => code === wild).length : 0));
}

// The cause of payment `p` ({payer, payee, reason}) or null for a plain share of a win.
export function paymentCause(ended, p, nameOf, wild) {
  const payer = nameOf(p.payer);
  const payee = nameOf(p.payee);
  switch (p.reason) {
    case "covers": {
      // 统包: the payer fed the winner three 吃, or the winner fed the payer three
      const fed = chowsFed(ended, p.payer, p.payee);
      const [feeder, eater, n] = fed ? [p.payer, p.payee, fed] : [p.payee, p.payer, chowsFed(ended, p.payee, p.payer)];
      return t("cause_covers", { feeder: nameOf(feeder), eater: nameOf(eater), n, payer });
    }
    case "deal_in":
      return t("cause_deal_in", { payer });
    case "robbing_kong":
      return t("cause_robbing_kong", { payer });
    case "catch_dealer":
      return t("cause_catch_dealer", { payer });
    case "wild_bonus": {
      const held = wildsHeld(ended, wild);
      return t("cause_wild_bonus", { payee, payer, a: held[p.payee], b: held[p.payer] });
    }
    case "escape":
      return t("cause_escape", { payer });
    case "followed":
      return t("cause_followed", { payer });
    case "wild_discard":
      return t("cause_wild_discard", { payer });
    default:
      return null;
  }
}

// The transfers no score sheet explains as a formula (penalties, 财神分, an escape, a win
// with no sheet): a sheet's payment is the transfer with its payer, reason and points.
export function unexplained(ended) {
  const explained = (ended.scores || []).flatMap((x) => x.payments.map((p) => `${p.payer}>${x.seat}:${p.reason}:${p.points}`));
  return ended.transfers.filter((x) => {
    const i = explained.indexOf(`${x.payer}>${x.payee}:${x.reason}:${x.points}`);
    if (i < 0) return true;
    explained.splice(i, 1);
    return false;
  });
}
