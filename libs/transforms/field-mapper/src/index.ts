export { fieldMapperTransformFactory, fieldMapperSpec } from './field-mapper-transform.js';
