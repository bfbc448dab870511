import { expect } from "vitest";

/** Payloads from the usual XSS cheat sheets: tags, handlers, URL schemes, SVG/MathML tricks, broken markup. */
export const XSS_CORPUS = [
  `<script>alert(1)</script>`,
  `<SCRIPT SRC=//evil.example/x.js></SCRIPT>`,
  `<img src=x onerror=alert(1)>`,
  `<p onclick="alert(1)">клик</p>`,
  `<a href="javascript:alert(1)">ссылка</a>`,
  `<a href="JaVaScRiPt:alert(1)">ссылка</a>`,
  `<a href="&#106;avascript:alert(1)">ссылка</a>`,
  `<a href="java\tscript:alert(1)">ссылка</a>`,
  `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data</a>`,
  `<a href="vbscript:msgbox(1)">vb</a>`,
  `<svg onload=alert(1)>`,
  `<svg><script>alert(1)</script></svg>`,
  `<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">svg</text></a></svg>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
  `<iframe src="javascript:alert(1)"></iframe>`,
  `<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
  `<object data="javascript:alert(1)"></object>`,
  `<embed src="javascript:alert(1)">`,
  `<body onload=alert(1)>`,
  `<details open ontoggle=alert(1)>`,
  `<input autofocus onfocus=alert(1)>`,
  `<form action="javascript:alert(1)"><button>x</button></form>`,
  `<style>@import 'javascript:alert(1)';</style>`,
  `<p style="background:url(javascript:alert(1))">стиль</p>`,
  `<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`,
  `<base href="javascript:alert(1)//">`,
  `<img src="x" onerror="&#97;&#108;&#101;&#114;&#116;(1)">`,
  `<<script>alert(1)//<</script>`,
  `<scr<script>ipt>alert(1)</script>`,
  `"><script>alert(1)</script>`,
  `<a href="https://example.com" onmouseover="alert(1)">ok</a>`,
  `<video><source onerror="alert(1)"></video>`,
  `<template><script>alert(1)</script></template>`,
  `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`,
];

/** What "harmless" means: no element or attribute that can run code survives. */
export function assertHarmless(html: string) {
  expect(html).not.toMatch(/<\s*(script|iframe|object|embed|svg|math|style|img|meta|base|form|input|body|video|source|template|details|noscript)\b/i);
  expect(html).not.toMatch(/\son[a-z]+\s*=/i);
  expect(html).not.toMatch(/javascript:|vbscript:|data:text/i);
  expect(html).not.toMatch(/\sstyle\s*=/i);
}
