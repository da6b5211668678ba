/** Types of scripts/meshCerts.mjs (plain Node, run by `make up` without tsx). */
export declare const MESH_SERVICES: string[];
export declare function ensureMeshCertificates(
  dir: string,
  names?: readonly string[],
): { dir: string; made: string[] };
