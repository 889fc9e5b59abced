/**
 * The parts of tar names that are not UTF-8 (disk/names.ts) or too long for ustar: the pax
 * record that holds a name's exact bytes, and the ASCII stand-in the ustar header carries for
 * readers without pax (tar-writer.ts). The integration tests extract with tar and compare the
 * names byte for byte.
 */
/** One pax record, `<length> <key>=<value>\n`, where the length counts the whole record. */
export function paxRecord(key: string, value: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(` ${key}=`), value, Buffer.from('\n')]);
  let length = body.length + String(body.length).length;
  if (String(length).length + body.length !== length) length++;
  return Buffer.concat([Buffer.from(String(length)), body]);
}

/**
 * The name old readers see: printable ASCII, and short enough for a plain ustar header (so that
 * tar-stream writes no pax header of its own, which would override ours).
 */
export function asciiStandIn(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_');
  return ascii.length <= 99 ? ascii : ascii.slice(-99).replace(/^\/+/, '');
}
