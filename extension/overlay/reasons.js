/*
 * "Why this verdict" in the evidence card: the companion's reason ids (docs/api.md, "reasons")
 * and their particulars (`reason_details`) in the reader's words. Runs in: content scripts. Pure.
 *
 * A value from `reason_details` was read off a cited page: it goes into a message as a
 * substitution and the card sets the message with textContent, never as markup.
 */
'use strict';
(function (CL) {
  const { t } = CL.i18n;

  /**
   * The rule families of companion/judging/rules/<language>.json, by what they found: one message for
   * each group, worded for any language the rule was written for.
   * @type {Record<string, (details?: Record<string, string>) => string>}
   */
  const RULE_WORDS = {
    framed: () => t('card_reason_rule_framed'),
    framed_numbers: () => t('card_reason_rule_framed'),
    negated: () => t('card_reason_rule_negated'),
    negated_between: () => t('card_reason_rule_negated'),
    negates: () => t('card_reason_rule_negated'),
    restates_negated: () => t('card_reason_rule_negated'),
    substituted: () => t('card_reason_rule_substituted'),
    // Another value for the same quantity: both values when the companion sends them.
    another_number: (details) =>
      details && isValue(details.source) && isValue(details.claim)
        ? t('card_reason_rule_another_number_values', details.source, details.claim)
        : t('card_reason_rule_another_number'),
    opposite: () => t('card_reason_rule_opposite'),
    reversed: () => t('card_reason_rule_opposite'),
    passive_reversed: () => t('card_reason_rule_opposite'),
    scope_universal: () => t('card_reason_rule_scope'),
    scope_only: () => t('card_reason_rule_scope'),
    scope_part_of: () => t('card_reason_rule_scope'),
    scope_partial: () => t('card_reason_rule_scope'),
  };

  /** The other reason ids (docs/api.md, "reasons"). @type {Record<string, (details?: Record<string, string>) => string>} */
  const REASON_WORDS = {
    'model.entailment': () => t('card_reason_model_entailment'),
    'model.no_entailment': () => t('card_reason_model_no_entailment'),
    'model.contradiction': () => t('card_reason_model_contradiction'),
    'model.conflicting_reading': () => t('card_reason_model_conflicting_reading'),
    'wording.says_otherwise': () => t('card_reason_wording_says_otherwise'),
    'score.below_complete': () => t('card_reason_score'),
    'score.below_partial': () => t('card_reason_score'),
    'claims.unsupported': () => t('card_reason_claims_unsupported'),
  };

  /**
   * What decided a verdict, in the reader's words: one line per message, in the order of the
   * ids (strongest first), each message once, and the model's "no entailment" not beside its
   * "contradiction". An id this version does not know (a newer companion's) is left out, never
   * shown as it is; so is anything that is not a string. A reason's `details` (another
   * value's two numbers) go into its words as text; details of another shape are ignored.
   * @param {unknown} reasons  a statement line's `reasons`: missing from an older companion
   * @param {unknown} [details]  its `reason_details`, by id
   * @returns {string[]}
   */
  function reasonWords(reasons, details) {
    if (!Array.isArray(reasons)) return [];
    // "Reads it as the opposite" already says it does not read it as the same thing.
    const opposite = reasons.includes('model.contradiction');
    const words = [];
    for (const id of reasons) {
      if (typeof id !== 'string' || (opposite && id === 'model.no_entailment')) continue;
      const rule = /^rule:[a-z]{2,3}\.([a-z_]+)$/.exec(id);
      const say = rule ? Object.hasOwn(RULE_WORDS, rule[1]) && RULE_WORDS[rule[1]] : Object.hasOwn(REASON_WORDS, id) && REASON_WORDS[id];
      if (!say) continue;
      const own = details && typeof details === 'object' && Object.hasOwn(details, id) ? /** @type {any} */ (details)[id] : null;
      const text = say(own && typeof own === 'object' ? own : undefined);
      if (!words.includes(text)) words.push(text);
    }
    return words;
  }

  /** A value of reason_details fit to show in a sentence: a short string. @param {unknown} v */
  function isValue(v) {
    return typeof v === 'string' && v.trim() !== '' && v.length <= 80;
  }

  CL.overlay = Object.assign(CL.overlay || {}, { reasonWords });
})((globalThis.CiteLens ??= {}));
