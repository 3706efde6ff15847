/*
 * The only place that chooses an adapter (Hypothesis integrations/index habit).
 * Runs in: content scripts.
 *
 * An engine adapter is chosen by URL, else by markup signature (the same page saved or served
 * elsewhere); the generic adapter is the fallback, told which engine's hosts to leave out.
 */
'use strict';
(function (CL) {
  const A = CL.adapters;

  /** @param {Document} doc @param {string} url */
  function detect(doc, url) {
    const engines = [...A.registry.values()].filter((a) => a.meta.id !== 'generic');
    return (
      engines.find((a) => a.meta.target.test(url)) ||
      engines.find((a) => a.selectors.signature.length && A.queryAll(doc, a.selectors.signature).length) ||
      null
    );
  }

  /**
   * Opens folded answers; returns how many controls were pressed, so the caller can let the
   * page render before capturing.
   * @param {Document} doc @param {string} url
   */
  function prepare(doc, url) {
    const engine = detect(doc, url);
    return engine ? A.prepare(engine, doc) : 0;
  }

  /**
   * @param {Document} doc
   * @param {{url: string, selection?: Selection|null}} context
   */
  function captureAnswer(doc, context) {
    const engine = detect(doc, context.url);
    const generic = A.registry.get('generic');
    if (!engine) return A.capture(generic, doc, context);
    let failure;
    try {
      return A.capture(engine, doc, context);
    } catch (error) {
      if (!(error instanceof A.CaptureError)) throw error;
      failure = error;
    }
    // Markup drift: the container may still be found while its citation markup changed, so the
    // generic rules read that same container; otherwise only a selection is trusted.
    const fallback = { ...context, engine: engine.meta.engine, ownHosts: engine.ownHosts, within: failure.container || undefined };
    // The engine's app pages stay out as its adapter keeps them out; its other pages count.
    const reader = engine.ownPages ? { ...generic, ownPages: engine.ownPages } : generic;
    try {
      return A.capture(reader, doc, fallback);
    } catch (error) {
      if (error instanceof A.CaptureError && failure.code === 'no_citations') throw failure;
      throw error;
    }
  }

  Object.assign(A, { detect, prepareFor: prepare, captureAnswer });
})((globalThis.CiteLens ??= {}));
