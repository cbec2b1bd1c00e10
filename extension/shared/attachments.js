// Files the user attaches to a task, as a start request carries them: name, media type and bytes
// in base64 (crate/core/src/files/attach.rs, which checks the same bounds again and whose test
// keeps these equal to its own).

export const MAX_ATTACHED_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_ATTACHED_BYTES = 25 * 1024 * 1024;
export const MAX_ATTACHED_FILES = 10;

/** Bytes as megabytes, as the core says them ("10 MB", "10.5 MB"). */
export function megabytes(bytes) {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

/** Why `files` (File objects) cannot all be attached, as `[key, ...args]` for i18n; null if they can. */
export function attachmentProblem(files) {
  if (files.length > MAX_ATTACHED_FILES) return ['panel_attach_too_many', MAX_ATTACHED_FILES];
  const large = files.find((file) => file.size > MAX_ATTACHED_FILE_BYTES);
  if (large) return ['panel_attach_too_large', large.name, megabytes(large.size), megabytes(MAX_ATTACHED_FILE_BYTES)];
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > MAX_ATTACHED_BYTES) return ['panel_attach_too_much', megabytes(MAX_ATTACHED_BYTES)];
  return null;
}

/** A File as the start request carries it. */
export async function attachment(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  // In slices: String.fromCharCode takes a bounded number of arguments.
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return { name: file.name, mime: file.type, data: btoa(binary) };
}
