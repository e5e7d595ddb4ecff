// Quire's content origin: draws the Mermaid diagram whose source the page holds, with Mermaid's
// strict security level (labels are text, never HTML; no click callbacks, no links to scripts).
// When the source does not parse, the source stays shown, with Mermaid's message above it.
;(async () => {
  const source = document.getElementById('diagram-source')
  const target = document.getElementById('diagram')
  if (!source || !target) return
  const dark = matchMedia('(prefers-color-scheme: dark)').matches
  const mermaid = globalThis.mermaid
  const showError = (message) => {
    const note = document.createElement('p')
    note.className = 'diagram-error'
    note.setAttribute('role', 'alert')
    note.textContent = `This diagram could not be drawn: ${message}`
    target.replaceChildren(note)
    document.body.classList.add('failed')
  }
  // A wide diagram in a narrow frame (a phone) is shrunk to fit until its labels cannot be read:
  // below 60% of its size it keeps that width and scrolls sideways instead.
  const keepReadable = (drawn) => {
    const natural = drawn?.viewBox?.baseVal?.width
    if (!drawn || !natural) return
    const fit = () => {
      drawn.style.minWidth = target.clientWidth / natural < 0.6 ? `${Math.round(natural * 0.6)}px` : ''
    }
    fit()
    new ResizeObserver(fit).observe(target)
  }
  if (!mermaid) return showError('the diagram renderer did not load.')
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: 'strict',
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    theme: dark ? 'dark' : 'default',
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  })
  try {
    const text = source.textContent ?? ''
    await mermaid.parse(text)
    const { svg } = await mermaid.render('quire-diagram', text)
    target.innerHTML = svg
    document.body.classList.add('drawn')
    keepReadable(target.querySelector('svg'))
  } catch (error) {
    showError(
      String(error?.message ?? error)
        .split('\n')
        .slice(0, 6)
        .join('\n'),
    )
  }
})()
