import type { IssuanceStatus } from "../../core/status/issuanceStatus.js";
import { type IssuanceView, issuanceView } from "../../core/transparency/issuanceView.js";
import { redactRecordStrings } from "../../lib/redact/redactStrings.js";
import { escapeHtml as h } from "../../lib/text/escapeHtml.js";

/**
 * The dashboard's "Certificate Transparency" section: every issuance the watch found that
 * nothing certsched did explains and nobody acknowledged (red), and those that may still be
 * certsched's own request (pending), with their names, issuer, validity, why and the crt.sh
 * link. The names and issuer come from a log a CA wrote to: every text is escaped. No section
 * when there is nothing to show (the watch off, or every issuance explained).
 */

/** Issuances listed per state; the rest are counted (`certsched ct` lists them all). */
export const MAX_LISTED_ISSUANCES = 100;

/** `2026-11-23 09:30 UTC`: as the page's other times. */
const when = (iso: string | undefined) =>
  iso === undefined ? "unknown" : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

function namesHtml(v: IssuanceView): string {
  const more = v.moreNames > 0 ? ` <span class="sub">and ${v.moreNames} more not kept</span>` : "";
  if (v.names.length === 0) return `<span class="sub">no names</span>${more}`;
  return `${v.names.map((n) => `<code>${h(n)}</code>`).join(", ")}${more}`;
}

function conditionHtml(v: IssuanceView): string {
  const words = [...(v.revoked ? ["revoked"] : []), ...(v.expired ? ["expired"] : [])];
  return words.length > 0 ? ` <span class="badge ct-condition">${words.join(", ")}</span>` : "";
}

/** One issuance: the badge, names, issuer, validity, why and link (never with the page's key). */
function itemHtml(v: IssuanceView, accounts: boolean): string {
  const state = v.state === "unexpected" ? "unexpected" : "pending";
  const of = accounts ? ` · account ${h(v.account)}` : "";
  const link =
    v.link === undefined
      ? ""
      : ` · <a href="${h(v.link)}" rel="noreferrer noopener" target="_blank">crt.sh</a>`;
  return `<li class="ct-${state}" data-issuance="${h(v.id)}"><span class="badge ct-${state}">${state}</span>${conditionHtml(v)} ${namesHtml(v)}<span class="sub">by ${h(v.issuer ?? "an unknown issuer")}, valid ${h(when(v.notBefore))} to ${h(when(v.notAfter))}${of}</span><span class="sub">watched name <code>${h(v.watched)}</code> · issuance ${h(v.id)}${link}</span><span class="sub">${h(v.why)}</span></li>`;
}

function listHtml(
  heading: string,
  views: readonly IssuanceView[],
  accounts: boolean,
  cls: string,
): string {
  if (views.length === 0) return "";
  const listed = views.slice(0, MAX_LISTED_ISSUANCES);
  const more =
    views.length > listed.length
      ? `<p class="sub">and ${views.length - listed.length} more: certsched ct lists them all</p>`
      : "";
  return `<h3 class="${cls}">${heading}</h3><ul class="ct-list">${listed.map((v) => itemHtml(v, accounts)).join("")}</ul>${more}`;
}

/**
 * The section over the accounts' issuances (only `account`'s when the page is filtered by one);
 * `accounts`: the page shows several, so each issuance names its account.
 */
export function issuanceSection(
  statuses: readonly IssuanceStatus[],
  now: Date,
  options: { readonly account?: string | undefined; readonly accounts: boolean },
): string {
  const shown = statuses.filter(
    (s) => options.account === undefined || s.account === options.account,
  );
  // Redacted as the page's model is: storage may quote a token another process was issued.
  const views = (pick: (s: IssuanceStatus) => IssuanceStatus["unexpected"]) =>
    redactRecordStrings(shown.flatMap((s) => pick(s).map((seen) => issuanceView(seen, now))));
  const unexpected = views((s) => s.unexpected);
  const pending = views((s) => s.pending);
  const problems = redactRecordStrings(
    shown.flatMap((s) =>
      s.problems.map((p) => (options.accounts ? `account ${s.account}: ${p}` : p)),
    ),
  );
  if (unexpected.length + pending.length + problems.length === 0) return "";
  const n = unexpected.length;
  const alert =
    n > 0
      ? `<p class="ct-alert" role="alert">${n} unexpected certificate issuance${n === 1 ? "" : "s"} (not acknowledged): nothing certsched did explains ${n === 1 ? "it" : "them"}. <code>certsched ct</code> lists every issuance; acknowledge one once it is explained.</p>`
      : "";
  const problemList =
    problems.length > 0
      ? `<ul class="sub">${problems.map((p) => `<li>${h(p)}</li>`).join("")}</ul>`
      : "";
  return `<section id="ct" aria-labelledby="ct-title"><h2 id="ct-title">Certificate Transparency</h2>${alert}${problemList}${listHtml("Unexpected", unexpected, options.accounts, "ct-unexpected")}${listHtml("Pending: may be certsched's own request", pending, options.accounts, "ct-pending")}</section>`;
}
