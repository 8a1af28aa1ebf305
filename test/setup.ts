import '../local/polyfills.ts';
