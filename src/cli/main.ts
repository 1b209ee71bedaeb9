#!/usr/bin/env node
import { environment } from '../environment.js';
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), environment());
