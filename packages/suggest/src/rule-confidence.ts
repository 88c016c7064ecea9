/**
 * Confidence of a suggestion, by the rule that made it: the share of the
 * rule's suggestions that matched the label on the development split of
 * labelled crashes (docs/suggest.md, "How it is measured"), smoothed
 * towards one half for rules that fired rarely. Regenerate with
 * `npx tsx bench/suggest/calibrate.ts <labelled pools…>` after changing a rule.
 */
export const RULE_CONFIDENCE = {
  // 364 dev crashes; accuracy library 0.920, crashType 0.924, rootCause 0.608, pipelineStage 0.685
  'crashType.argument': 0.57, // 3/5
  'crashType.attribute': 0.89, // 30/33
  'crashType.broadcast': 0.8, // 3/3
  'crashType.data-value': 0.89, // 7/7
  'crashType.environment': 0.33, // 1/4
  'crashType.feature-names': 0.8, // 3/3
  'crashType.import': 0.94, // 16/16
  'crashType.index': 0.94, // 15/15
  'crashType.initialization': 0.75, // 2/2
  'crashType.io-class': 0.9, // 27/29
  'crashType.io-message': 0.92, // 11/11
  'crashType.key': 0.96, // 22/22
  'crashType.name': 0.98, // 80/81
  'crashType.name-is-import': 0.92, // 10/10
  'crashType.opencv-assertion': 0.6, // 2/3
  'crashType.other': 0.33, // 0/1
  'crashType.runtime': 0.75, // 2/2
  'crashType.shape': 0.87, // 25/28
  'crashType.tf-invalid-argument': 0.75, // 2/2
  'crashType.type': 0.5, // 2/4
  'crashType.type-argument': 0.94, // 14/14
  'crashType.type-in-library': 0.73, // 7/9
  'crashType.type-operation': 0.87, // 12/13
  'crashType.value': 0.58, // 6/10
  'crashType.value-conversion': 0.88, // 14/15
  'library.alias-call': 0.83, // 9/10
  'library.callback': 0.81, // 12/14
  'library.called-module': 0.67, // 1/1
  'library.cannot-import': 0.5, // never fired
  'library.entry': 0.71, // 9/12
  'library.entry-same': 0.9, // 76/84
  'library.environment': 0.98, // 60/60
  'library.exception-class': 0.5, // never fired
  'library.implicit': 0.5, // never fired
  'library.interpreter': 0.75, // 2/2
  'library.method': 0.5, // never fired
  'library.misspelt-attribute': 0.8, // 3/3
  'library.moved-submodule': 0.5, // never fired
  'library.named-function': 0.9, // 8/8
  'library.none-value': 0.83, // 4/4
  'library.notebook-state': 0.99, // 91/91
  'library.notebook-cells': 0.5, // never fired
  'library.nothing': 0.83, // 28/33
  'library.other-package': 0.82, // 8/9
  'library.object-type': 0.75, // 11/14
  'library.stdlib': 0.5, // never fired
  'library.replay-frames': 0.5, // never fired (needs a replay: add)
  'library.replay-types': 0.5, // never fired (needs a replay: add)
  'library.rerun': 0.71, // 4/5
  'library.strong-message': 0.63, // 4/6
  'library.subscript': 0.67, // 1/1
  'library.weak-message': 0.71, // 4/5
  'library.wrapper': 0.75, // 2/2
  'pipelineStage.ahead': 0.59, // 42/71
  'pipelineStage.clear': 0.82, // 133/161
  'pipelineStage.default': 0.52, // 53/101
  'pipelineStage.tie': 0.6, // 2/3
  'rootCause.arguments': 0.85, // 16/18
  'rootCause.data': 0.52, // 16/31
  'rootCause.environment': 0.5, // 1/2
  'rootCause.index': 0.46, // 5/11
  'rootCause.key': 0.61, // 10/16
  'rootCause.library': 0.61, // 42/69
  'rootCause.model': 0.33, // 4/13
  'rootCause.name': 0.63, // 58/91
  'rootCause.name-defined-earlier': 0.5, // never fired
  'rootCause.name-defined-later': 0.5, // never fired
  'rootCause.name-never-defined': 0.5, // never fired
  'rootCause.name-typo': 0.5, // never fired
  'rootCause.no-library': 0.5, // 10/20
  'rootCause.out-of-order': 0.5, // never fired
  'rootCause.own-code': 0.67, // 5/7
  'rootCause.removed-api': 0.5, // never fired
  'rootCause.removed-attribute': 0.67, // 1/1
  'rootCause.rerun': 0.71, // 4/5
} as const satisfies Record<string, number>;

export type SuggestionRule = keyof typeof RULE_CONFIDENCE;
export type LibraryRule = Extract<SuggestionRule, `library.${string}`>;
