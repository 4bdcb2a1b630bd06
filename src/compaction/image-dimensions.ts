/** An image's size in pixels, as its header states it. */
export interface ImageDimensions {
  width: number;
  height: number;
}

/** How far into a JPEG the header walk looks for the frame (SOF) marker before giving up. */
const JPEG_SCAN_LIMIT = 4 * 1024 * 1024;

/**
 * Reads bytes of base64 data at a byte offset without decoding the whole string: a 3 MB image costs a few
 * dozen bytes of work, not a 3 MB buffer.
 */
function base64Reader(data: string): (offset: number, length: number) => Uint8Array {
  return (offset, length) => {
    const start = Math.floor(offset / 3) * 4;
    const end = Math.ceil((offset + length) / 3) * 4;
    const bytes = Buffer.from(data.slice(start, end), "base64");
    const skip = offset % 3;
    return bytes.subarray(skip, skip + length);
  };
}

const u16be = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const u16le = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, i: number) => u16le(b, i) | ((b[i + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, i: number) => u16be(b, i) * 65536 + u16be(b, i + 2);
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

const valid = (width: number, height: number): ImageDimensions | undefined =>
  width > 0 && height > 0 ? { width, height } : undefined;

/**
 * The width and height a PNG, JPEG, GIF or WebP states in its header, read from its base64 data without
 * decoding the image (nor the whole string). Undefined for another format or a header that does not parse.
 */
export function imageDimensions(base64: string): ImageDimensions | undefined {
  const read = base64Reader(base64);
  const head = read(0, 32);
  if (head.length < 10) return undefined;
  // PNG: the IHDR chunk comes first; width and height are its first two fields.
  if (head[0] === 0x89 && ascii(head, 1, 3) === "PNG" && head.length >= 24 && ascii(head, 12, 4) === "IHDR")
    return valid(u32be(head, 16), u32be(head, 20));
  // GIF: the logical screen size, little-endian, right after the signature.
  if (ascii(head, 0, 3) === "GIF") return valid(u16le(head, 6), u16le(head, 8));
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 4) === "WEBP") {
    const chunk = ascii(head, 12, 4);
    if (chunk === "VP8X") return valid(u24le(head, 24) + 1, u24le(head, 27) + 1);
    if (chunk === "VP8L") {
      const bits =
        (head[21] ?? 0) | ((head[22] ?? 0) << 8) | ((head[23] ?? 0) << 16) | ((head[24] ?? 0) << 24);
      return valid((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
    if (chunk === "VP8 ") return valid(u16le(head, 26) & 0x3fff, u16le(head, 28) & 0x3fff);
    return undefined;
  }
  if (head[0] === 0xff && head[1] === 0xd8) return jpegDimensions(read, Math.floor((base64.length * 3) / 4));
  return undefined;
}

/** Walks the JPEG's segments (each says its length) to the first frame header, which holds the size. */
function jpegDimensions(
  read: (offset: number, length: number) => Uint8Array,
  size: number,
): ImageDimensions | undefined {
  let offset = 2;
  const limit = Math.min(size, JPEG_SCAN_LIMIT);
  while (offset + 9 < limit) {
    const marker = read(offset, 9);
    if (marker[0] !== 0xff) return undefined;
    const type = marker[1] ?? 0;
    // Fill bytes and markers without a length.
    if (type === 0xff) {
      offset++;
      continue;
    }
    if (type === 0xd8 || type === 0x01 || (type >= 0xd0 && type <= 0xd7)) {
      offset += 2;
      continue;
    }
    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
    if (type >= 0xc0 && type <= 0xcf && type !== 0xc4 && type !== 0xc8 && type !== 0xcc)
      return valid(u16be(marker, 7), u16be(marker, 5));
    if (type === 0xd9 || type === 0xda) return undefined;
    offset += 2 + u16be(marker, 2);
  }
  return undefined;
}
