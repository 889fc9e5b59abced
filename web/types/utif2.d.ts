/**
 * The part of utif2 the TIFF viewer uses. The package's own declarations import Node's types
 * (for Buffer), which the browser code must not see (web/tsconfig.json `types: []`).
 */
declare module 'utif2' {
  export interface IFD {
    [property: string]: unknown;
    data: Uint8Array;
    width: number;
    height: number;
  }
  export function decode(buffer: ArrayBuffer): IFD[];
  export function decodeImage(buffer: ArrayBuffer, ifd: IFD): void;
  export function toRGBA8(ifd: IFD): Uint8Array;
  const UTIF: { decode: typeof decode; decodeImage: typeof decodeImage; toRGBA8: typeof toRGBA8 };
  export default UTIF;
}
