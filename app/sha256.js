// The sha256 of some bytes as lowercase hex, as manifest.json writes them.
/** @param {BufferSource} bytes */
export async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
