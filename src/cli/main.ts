#!/usr/bin/env node
import { environment } from '../main.js';
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), environment());
