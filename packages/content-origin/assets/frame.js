// Quire's content origin: tells the page that frames this document how tall the document is, so
// that the frame fits it. The page checks that the message comes from its own frame and bounds
// the height; a document's own script could send the same message, and gain nothing by it.
;(() => {
  const script = document.currentScript
  const parentOrigin = script?.dataset.parent
  if (!parentOrigin || window.parent === window) return
  let last = -1
  const report = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height)
    if (height === last) return
    last = height
    window.parent.postMessage({ type: 'quire:frame-height', height }, parentOrigin)
  }
  addEventListener('load', report)
  new ResizeObserver(report).observe(document.documentElement)
})()
