import sanitizeHtml from "sanitize-html";

/**
 * The one HTML policy for scripts: what the rich-text editor produces (paragraphs, headings, bold, italic,
 * underline, lists, quotes, links) and nothing that runs. Applied when a script is saved and again when it is
 * rendered, so a row written by any other path is still harmless on screen.
 */
const POLICY: sanitizeHtml.IOptions = {
  allowedTags: ["p", "br", "h1", "h2", "h3", "h4", "strong", "b", "em", "i", "u", "s", "code", "pre", "blockquote", "ul", "ol", "li", "a", "hr"],
  allowedAttributes: { a: ["href", "target", "rel"] },
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowedSchemesAppliedToAttributes: ["href"],
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  // Text inside these is dropped entirely, not kept as text.
  nonTextTags: ["script", "style", "textarea", "option", "noscript", "title", "iframe", "object", "embed", "svg", "math", "template"],
  transformTags: {
    a: sanitizeHtml.simpleTransform("a", { target: "_blank", rel: "noopener noreferrer nofollow" }),
  },
};

export function sanitizeScriptHtml(html: string): string {
  return sanitizeHtml(html, POLICY);
}
