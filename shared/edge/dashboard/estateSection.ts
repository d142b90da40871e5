import type { EstateStatus, KeptEntry, KeptEstate } from "../../core/estate/kept.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeHtml as h } from "../../lib/text/escapeHtml.js";
import { DAY_MS } from "../../lib/time.js";

/**
 * The dashboard's "Estate" section: what the estate timer kept of each account's last report
 * (the page never discovers: that is Resource Graph and every vault, once a day), with the
 * certificates certsched does not keep that expire soon listed first, red. Names and places
 * came from Resource Graph and vaults: every text is redacted and escaped. No section when no
 * account has an estate store.
 */

/** Entries listed per account; the rest are counted (`certsched estate` lists them all). */
export const MAX_LISTED_ESTATE = 100;

const when = (date: Date) =>
  `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 16)} UTC`;
const text = (value: string) => h(redact(value));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function expiryHtml(at: Date | undefined, now: Date): string {
  if (at === undefined) return "expiry unknown";
  const left = at.getTime() - now.getTime();
  const distance =
    left < 0
      ? `expired ${plural(Math.ceil(-left / DAY_MS), "day")} ago`
      : `in ${plural(Math.floor(left / DAY_MS), "day")}`;
  return `expires <time datetime="${at.toISOString()}">${when(at)}</time> (${distance})`;
}

function entryHtml(entry: KeptEntry, now: Date): string {
  return `<li class="estate-expiring" data-estate="${text(entry.id)}"><span class="name estate-name">${text(entry.name)}</span> <span class="badge">${text(entry.kind)}</span><span class="sub">${expiryHtml(entry.expiresAt, now)} · bound to ${text(entry.boundTo)}</span><span class="sub">subscription ${text(entry.subscriptionId)}</span></li>`;
}

function countsHtml(kept: KeptEstate): string {
  const c = kept.counts;
  const parts = [
    `${plural(c.certificates, "certificate")}: ${c.managed} kept by certsched, ${c.unmanaged} not`,
    `${c["unmanaged-expiring"]} unmanaged and expiring within ${plural(kept.expiringDays, "day")}`,
    `${c["bound-nowhere"]} bound nowhere`,
    `${c["different-certificate"]} bound to a host name certsched renews but a different certificate`,
  ];
  const unread =
    kept.problems > 0 ? ` ${plural(kept.problems, "part")} of the estate could not be read.` : "";
  const cut = kept.truncated > 0 ? ` ${kept.truncated} rows were left out by a bound.` : "";
  return `${parts.join("; ")}.${unread}${cut}`;
}

function keptHtml(kept: KeptEstate, now: Date): string {
  const at = `Discovered <time datetime="${kept.at.toISOString()}">${when(kept.at)}</time>`;
  const head = `<p>${at}: ${countsHtml(kept)}</p>`;
  const n = kept.expiring.length;
  if (n === 0) return head;
  const listed = kept.expiring.slice(0, MAX_LISTED_ESTATE);
  const more =
    n > listed.length
      ? `<p class="sub">and ${n - listed.length} more: certsched estate lists them all</p>`
      : "";
  const alert = `<p class="estate-alert" role="alert">${plural(n, "certificate")} certsched does not keep ${n === 1 ? "expires" : "expire"} within ${plural(kept.expiringDays, "day")}: <code>certsched estate</code> explains each and shows the create request that would bring it under management.</p>`;
  return `${head}${alert}<ul class="estate-list">${listed.map((e) => entryHtml(e, now)).join("")}</ul>${more}`;
}

function accountHtml(status: EstateStatus, now: Date, accounts: boolean): string {
  const title = accounts ? `<h3>account ${text(status.account)}</h3>` : "";
  if (status.problem !== undefined) return `${title}<p class="sub">${text(status.problem)}</p>`;
  if (status.kept === undefined) {
    return `${title}<p class="sub">Not discovered yet: the estate timer (CERTSCHED_ESTATE_SCHEDULE) keeps its last report here; <code>certsched estate</code> discovers now.</p>`;
  }
  return `${title}${keptHtml(status.kept, now)}`;
}

/**
 * The section over the accounts' last estates (only `account`'s when the page is filtered by
 * one); `accounts`: the page shows several, so each part names its account.
 */
export function estateSection(
  estates: readonly EstateStatus[],
  now: Date,
  options: { readonly account?: string | undefined; readonly accounts: boolean },
): string {
  const shown = estates.filter(
    (s) => options.account === undefined || s.account === options.account,
  );
  if (shown.length === 0) return "";
  const parts = shown.map((s) => accountHtml(s, now, options.accounts)).join("");
  return `<section id="estate" aria-labelledby="estate-title"><h2 id="estate-title">Estate: certificates certsched does not keep</h2>${parts}</section>`;
}
