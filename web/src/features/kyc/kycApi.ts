import { api, type ApiProgress } from '../../app/apiClient';
import { messageFrom } from '../queues/lists';

const enc = encodeURIComponent;

/** Two identity images on a slow uplink take longer than an ordinary request's timeout. */
const KYC_UPLOAD_TIMEOUT_MS = 120_000;

export const kycApi = {
  /** POST api/users/uploadKycDocuments, multipart with files `front` and `back` -> { message }. */
  async upload(
    front: File,
    back: File,
    onProgress: (percent: number) => void,
    signal?: AbortSignal,
  ): Promise<string> {
    const form = new FormData();
    form.append('front', front);
    form.append('back', back);
    const res = await api.post('users/uploadKycDocuments', form, {
      signal,
      timeout: KYC_UPLOAD_TIMEOUT_MS,
      onUploadProgress: (e: ApiProgress) => {
        if (e.total) onProgress(Math.min(100, Math.round((e.loaded / e.total) * 100)));
      },
    });
    return messageFrom(res.data);
  },
  /** PATCH api/users/kyc/approve/{id} | reject/{id}, no body -> { message }. */
  async decide(id: string, decision: 'approve' | 'reject'): Promise<string> {
    return messageFrom((await api.patch(`users/kyc/${decision}/${enc(id)}`)).data);
  },
};
