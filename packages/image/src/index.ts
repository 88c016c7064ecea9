export { planImageRecipe, normalizeDistribution, requirementName } from './plan-image-recipe.js';
export type { ImageRecipe, InstanceRequirement } from './plan-image-recipe.js';
export {
  renderDockerfile,
  hashImageContent,
  imageTagFor,
  IMAGE_REPOSITORY,
  RUNNER_CONTEXT_NAME,
} from './render-dockerfile.js';
export { readProfile } from './read-profile.js';
export type { LoadedProfile } from './read-profile.js';
export { readInstanceRequirements } from './read-instance-requirements.js';
export { buildImage, renderImage, readImageVersions } from './build-image.js';
export type {
  BuildImageOptions,
  BuildImageResult,
  ImagePaths,
  RenderImageOptions,
  RenderedImage,
} from './build-image.js';
export { PYTHON_STDLIB_MODULES } from './python-stdlib.js';
export { readImageRecord } from './read-image-record.js';
