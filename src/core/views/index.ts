/**
 * What faces show of a plan: its problems, located, with fixes (`analyze`), the actions each
 * status offers (`planActions`), and the plan editor's view model (`planView` computes
 * `planViewModel`; imported by file, to keep the rendering stack out of bundles that do not draw).
 */
export * from './analyze';
export * from './planActions';
