#!/usr/bin/env node
// `npm start` and `node dist/src/main.js`: the svc command line, whose default command serves
import './cli/main.js';
