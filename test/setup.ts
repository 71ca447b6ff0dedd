// Node warnings fail the suite: a warning is a bug we have not understood yet.
process.on('warning', (warning) => {
  throw warning;
});
