// Encode and decode with HF's JavaScript tokenizer (npm @huggingface/tokenizers, what
// transformers.js uses), for tests/test_hf_clients.py.  Reads one JSON object on standard input,
// {"folder": "...", "texts": [...], "decode": [[ids], ...]}, writes
// {"ids": [[...], ...], "decoded": ["...", ...]}.  Run with NODE_PATH naming the node_modules
// folder the package was installed into (the test installs it at test time, never vendored).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.env.TOKENIZERS_JS_MODULES, "noop.js"));
const { Tokenizer } = require("@huggingface/tokenizers");
const request = JSON.parse(readFileSync(0, "utf8"));
const read = (name) => JSON.parse(readFileSync(join(request.folder, name), "utf8"));
const tokenizer = new Tokenizer(read("tokenizer.json"), read("tokenizer_config.json"));
const ids = request.texts.map((t) => tokenizer.encode(t, { add_special_tokens: false }).ids);
// (tokenizers.js refuses to decode an empty array: nothing decodes to "")
const decoded = request.decode.map((x) => (x.length ? tokenizer.decode(x, { skip_special_tokens: false }) : ""));
process.stdout.write(JSON.stringify({ ids, decoded }));
