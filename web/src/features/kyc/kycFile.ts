/** Spec §5 and §9: the checks of a KYC file pick, before anything is sent. */
export const KYC_MAX_BYTES = 10_485_760;
export const KYC_EXTENSIONS = ['jpeg', 'jpg', 'png', 'gif', 'webp', 'bmp', 'heic', 'pdf'] as const;
export const KYC_MIME_TYPES = [
  'image/jpeg',
  'image/jpg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/heic',
  'application/pdf',
] as const;

export const KYC_MESSAGES = {
  noFile: 'Please select a file.',
  tooLarge: 'File size must be less than 10MB.',
  badType: 'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
  bothRequired: 'Please upload both front and back documents.',
  uploaded: 'KYC documents uploaded successfully!',
  uploadFailed: 'Upload failed. Please try again.',
} as const;

const extensionOf = (name: string) =>
  name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';

/** The reason a picked file is refused, or null when it may be uploaded. */
export function kycFileProblem(file: File | null | undefined): string | null {
  if (!file) return KYC_MESSAGES.noFile;
  if (file.size > KYC_MAX_BYTES) return KYC_MESSAGES.tooLarge;
  const type = file.type.toLowerCase();
  // Browsers often give HEIC files no MIME type: then the extension decides. The server checks the bytes.
  const typeOk = type
    ? (KYC_MIME_TYPES as readonly string[]).includes(type)
    : (KYC_EXTENSIONS as readonly string[]).includes(extensionOf(file.name));
  return typeOk ? null : KYC_MESSAGES.badType;
}
