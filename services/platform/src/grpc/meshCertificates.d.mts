/** Types of meshCertificates.mjs (plain Node: `make up` runs it before anything is installed). */
export declare const MESH_SERVICES: string[];
export declare function ensureMeshCertificates(
  dir: string,
  names?: readonly string[],
  options?: { loopback?: boolean },
): { dir: string; made: string[] };
