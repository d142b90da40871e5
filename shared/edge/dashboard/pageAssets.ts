import { createHash } from "node:crypto";

/**
 * The page's one stylesheet and one script, inline (no CDN, no font, no second request: the
 * page must work in a locked-down tenant), each allowed by its SHA-256 in the
 * Content-Security-Policy rather than by 'unsafe-inline'. Nothing else may run or load.
 */

/** Bar widths in 5 % steps as classes: a style="" attribute would need 'unsafe-inline'. */
const WIDTHS = Array.from({ length: 21 }, (_, i) => `.w${i * 5}{width:${i * 5}%}`).join("");

export const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;
--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--info:#0969da;--none:#6e7781}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--panel:#161b22;
--line:#30363d;--ok:#3fb950;--warn:#d29922;--bad:#f85149;--info:#58a6ff;--none:#8b949e}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
header,main{max-width:1800px;margin:0 auto;padding:12px 16px}
h1{font-size:1.35rem;margin:0 0 4px}
a{color:var(--info)}
.meta{color:var(--muted);margin:0 0 12px;font-size:.9rem}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:8px;margin:0 0 12px}
.fact{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 10px}
.fact dt{color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.04em}
.fact dd{margin:2px 0 0;overflow-wrap:anywhere}
.filters{display:flex;flex-wrap:wrap;gap:6px;list-style:none;margin:0;padding:0}
.chip{display:inline-block;padding:3px 10px;border:1px solid var(--line);border-radius:999px;text-decoration:none;color:var(--fg);background:var(--panel);font-size:.9rem}
.chip b{margin-left:4px}
.chip[aria-current=page]{outline:2px solid var(--info);outline-offset:1px}
.problems{border:1px solid var(--bad);border-left-width:6px;border-radius:6px;padding:8px 12px;margin:0 0 12px}
.problems p{margin:0 0 4px;font-weight:600}
.problems ul{margin:0;padding-left:18px}
.shown{color:var(--muted);margin:0 0 8px}
#accounts{margin:0 0 16px}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;vertical-align:top;padding:6px 8px;border-bottom:1px solid var(--line)}
th{font-size:.8rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em;white-space:nowrap}
td{overflow-wrap:anywhere}
.name{font-weight:600}
.sub{display:block;color:var(--muted);font-size:.85rem}
.badge{display:inline-block;padding:1px 8px;border-radius:4px;font-weight:600;font-size:.85rem;border:1px solid currentColor;white-space:nowrap}
.st-ok{color:var(--ok)}.st-pending{color:var(--info)}.st-expiring{color:var(--warn)}
.st-unverifiable,.st-unknown{color:var(--none)}
.st-expired,.st-stuck,.st-failed,.st-not-landed,.st-not-synced,.st-incomplete-chain,.st-weak,.st-too-long{color:var(--bad)}
.pf-ready{color:var(--ok)}.pf-will-fail{color:var(--bad)}.pf-unknown,.pf-none{color:var(--none)}
#ct{margin:0 0 16px}#ct h2{font-size:1.1rem;margin:0 0 6px}#ct h3{font-size:.95rem;margin:8px 0 4px}
.ct-list{list-style:none;margin:0;padding:0}.ct-list li{padding:6px 0;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
.ct-unexpected{color:var(--bad)}.ct-pending{color:var(--info)}.ct-condition{color:var(--warn)}
.ct-list li.ct-unexpected,.ct-list li.ct-pending{color:var(--fg)}.ct-list li.ct-unexpected{border-left:4px solid var(--bad);padding-left:8px}
.ct-alert{border:1px solid var(--bad);border-left-width:6px;border-radius:6px;padding:8px 12px;margin:0 0 8px;color:var(--bad);font-weight:600}
#estate{margin:0 0 16px}#estate h2{font-size:1.1rem;margin:0 0 6px}#estate h3{font-size:.95rem;margin:8px 0 4px}
.estate-list{list-style:none;margin:0;padding:0}.estate-list li{padding:6px 0 6px 8px;border-bottom:1px solid var(--line);border-left:4px solid var(--bad);overflow-wrap:anywhere}
.estate-alert{border:1px solid var(--bad);border-left-width:6px;border-radius:6px;padding:8px 12px;margin:0 0 8px;color:var(--bad);font-weight:600}
.filters-label{align-self:center;color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.04em}
nav+nav{margin-top:6px}
details{margin-top:4px}details ul{margin:4px 0 0;padding-left:18px}summary{cursor:pointer;color:var(--info)}
.days{display:flex;flex-wrap:wrap;align-items:center;gap:4px 8px;min-width:150px}
.bar{flex:0 0 90px;height:10px;border-radius:5px;background:var(--panel);border:1px solid var(--line);overflow:hidden}
.fill{display:block;height:100%}
.band-ok{background:var(--ok)}.band-warn{background:var(--warn)}.band-bad{background:var(--bad)}.band-none{background:var(--none)}
.days-text{white-space:nowrap;font-variant-numeric:tabular-nums}
time{white-space:nowrap}
${WIDTHS}
@media (max-width:900px){
thead{display:none}
table,tbody,tr,td{display:block;width:100%}
tr{border:1px solid var(--line);border-radius:6px;margin:0 0 10px;padding:4px 0}
td{border:0;padding:3px 10px;display:grid;grid-template-columns:8.5em 1fr;gap:8px}
.days{min-width:0}
td::before{content:attr(data-label);color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.03em}
}
`;

/**
 * Keeps the function key on the page's own links. A browser caller of an `authLevel: function`
 * endpoint sends the key as `?code=`; the filter and history links would drop it, and the host
 * would answer 401. The key is never written into the HTML (it is a secret): the script copies it
 * from the address bar, which already holds it, onto the links that stay on this app (checked:
 * a link that would leave the origin never gets it). Without
 * script the links still work for callers who need no key in the URL.
 */
export const SCRIPT = `(()=>{const key=new URLSearchParams(location.search).get("code");if(key===null)return;
for(const a of document.querySelectorAll("a[data-keep-key]")){const u=new URL(a.getAttribute("href"),location.href);
if(u.origin!==location.origin)continue;u.searchParams.set("code",key);a.href=u.href}})();`;

const sha256 = (text: string) =>
  `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * The policy: nothing loads or runs but the page's own style and script (by hash); no frame may
 * hold the page (clickjacking), no <base> may move its links, no form may post elsewhere.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${sha256(STYLE)}`,
  `script-src ${sha256(SCRIPT)}`,
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

/** Every header of the page. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
};
