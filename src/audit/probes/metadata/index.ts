import type { AuditProbe } from '../../types.js';
import { metadataProbe } from './metadata.js';
import { jwksProbe } from './jwks.js';
import { jwksKidUniqueProbe } from './jwks-kid-unique.js';
import { metadataDocumentsAgreeProbe } from './metadata-documents-agree.js';
import { metadataIssParameterProbe } from './metadata-iss-parameter.js';
import { metadataNoAlgNoneProbe } from './metadata-no-alg-none.js';
import { metadataNoImplicitProbe } from './metadata-no-implicit.js';
import { metadataNoPasswordGrantProbe } from './metadata-no-password-grant.js';

/** Metadata and documents: what the server announces (RFC 8414) and its keys (RFC 7517). */
export const METADATA_PROBES: readonly AuditProbe[] = [
  metadataProbe,
  jwksProbe,
  metadataNoImplicitProbe,
  metadataNoPasswordGrantProbe,
  metadataNoAlgNoneProbe,
  metadataIssParameterProbe,
  metadataDocumentsAgreeProbe,
  jwksKidUniqueProbe,
];
