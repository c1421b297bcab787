import { describe, expect, it } from 'vitest';
import { entityHasName, foldName } from '../../src/domain/names.js';

describe('foldName: whole-value, case-insensitive, Unicode-aware name comparison', () => {
  const same = (a: string, b: string) => expect(foldName(a), `${a} / ${b}`).toBe(foldName(b));
  const differ = (a: string, b: string) => expect(foldName(a), `${a} / ${b}`).not.toBe(foldName(b));

  it('folds case by the full mappings: ß, ẞ, SS and ss are one; ligatures and final sigma too', () => {
    same('Straße', 'STRASSE');
    same('STRAẞE', 'strasse');
    same('straße', 'Strasse');
    same('ﬀ', 'FF');
    same('ΟΔΥΣΣΕΥΣ', 'οδυσσευς');
    same('ΟΔΥΣΣΕΥΣ', 'οδυσσευσ');
    same('ǅemal', 'ǄEMAL');
    same('ſtar', 'STAR');
    same('\u212Aelvin', 'kelvin');
  });

  it('treats the Turkish İ and ı as I and i, so a name typed on either keyboard matches', () => {
    same('İstanbul', 'istanbul');
    same('İstanbul', 'ISTANBUL');
    same('ıstanbul', 'Istanbul');
    same('KIRMIZI', 'kırmızı');
  });

  it('compares canonically and compatibility-equivalent forms as one (NFC, NFD, full-width, ligature)', () => {
    same('Cafe\u0301', 'CAFÉ');
    same('caf\u00e9', 'CAFE\u0301');
    same('Ａｃｍｅ', 'acme');
    same('ﬁsh', 'FISH');
    same('Ἀθῆναι', 'ἈΘΗ͂ΝΑΙ');
  });

  it('keeps everything but case: accents, spaces, punctuation and other letters count', () => {
    differ('Café', 'Cafe');
    differ('Ann Lee', 'Ann  Lee');
    differ('Ann Lee', 'Ann Lee ');
    differ('Ann', 'Ann Lee');
    differ('O’Neil', "O'Neil");
    differ('Müller', 'Muller');
  });

  it('matches a node by its display name or any alias, whole value only', () => {
    const ann = { display_name: 'Ann Lee', aliases: ['Annie', 'A. Lee'] };
    expect(entityHasName(ann, foldName('ANN LEE'))).toBe(true);
    expect(entityHasName(ann, foldName('annie'))).toBe(true);
    expect(entityHasName(ann, foldName('a. lee'))).toBe(true);
    expect(entityHasName(ann, foldName('Ann'))).toBe(false);
    expect(entityHasName({ display_name: null, aliases: [] }, foldName('Ann'))).toBe(false);
  });
});
