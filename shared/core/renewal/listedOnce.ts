import type { CertificateRecord } from "../certificate/records.js";
import type { DueList, RejectedRecord } from "../ports/service.js";

/**
 * The list with each certificate id once. The same record twice (same id, same name) is one
 * renewal. Two names sharing one id cannot both be right, and the ledger keeps one row per id:
 * the first is renewed, the later ones are rejected by name and fail the run, never dropped.
 */
export function listedOnce(due: DueList): DueList {
  const positions = listPositions(due);
  const first = new Map<number, { name: string; position: number }>();
  const certificates: CertificateRecord[] = [];
  const rejected: RejectedRecord[] = [...due.rejected];
  due.certificates.forEach((cert, i) => {
    const position = positions[i] ?? i;
    const earlier = first.get(cert.id);
    if (!earlier) {
      first.set(cert.id, { name: cert.certificateName, position });
      certificates.push(cert);
    } else if (earlier.name !== cert.certificateName) {
      rejected.push({
        index: position,
        certificateName: cert.certificateName,
        id: cert.id,
        problems: [
          {
            name: "id",
            message: `${cert.id} is also the id of record ${earlier.position} (${earlier.name}): duplicate id, different name; not renewed`,
          },
        ],
      });
    }
  });
  rejected.sort((a, b) => a.index - b.index);
  return { ...due, certificates, rejected };
}

/**
 * Each valid certificate's index in the list as the service sent it: every record became either
 * a certificate or a rejected record, in order, so the gaps the rejected leave are the answer.
 */
function listPositions(due: DueList): number[] {
  const taken = new Set(due.rejected.map((r) => r.index));
  const positions: number[] = [];
  let index = 0;
  for (let i = 0; i < due.certificates.length; i++) {
    while (taken.has(index)) index += 1;
    positions.push(index);
    index += 1;
  }
  return positions;
}
