import { describe, expect, it } from 'vitest';
import { announcedStatusByLine, conventionProblem, extractShellBlocks, rewriteLine, splitCommands } from '../docs/blocks.js';

const fence = '```';

describe('extractShellBlocks', () => {
  it('takes bash, sh and shell fences with their line, and leaves other fences alone', () => {
    const markdown = [
      '# Title', // 1
      `${fence}bash`, // 2
      'echo one', // 3
      fence, // 4
      `${fence}json`, // 5
      '{"a": 1}', // 6
      fence, // 7
      `${fence}sh no-run`, // 8
      '# needs a second machine', // 9
      'ssh other', // 10
      fence, // 11
      `${fence}`, // 12
      'plain text', // 13
      fence, // 14
      `${fence}shell`, // 15
      'echo two', // 16
      fence, // 17
    ].join('\n');
    expect(extractShellBlocks(markdown)).toEqual([
      { fenceLine: 2, lines: ['echo one'], noRun: false },
      { fenceLine: 8, lines: ['# needs a second machine', 'ssh other'], noRun: true },
      { fenceLine: 15, lines: ['echo two'], noRun: false },
    ]);
  });

  it('does not take a shell fence shown inside a longer fence, and strips a list item\'s indentation', () => {
    const markdown = ['- item', '  ````text', `  ${fence}bash`, '  echo shown', `  ${fence}`, '  ````', '', `  ${fence}bash`, '  echo run', `  ${fence}`].join('\n');
    expect(extractShellBlocks(markdown)).toEqual([{ fenceLine: 8, lines: ['echo run'], noRun: false }]);
  });

  it('asks a no-run block to say why in its first line', () => {
    expect(conventionProblem({ fenceLine: 1, lines: ['ssh other'], noRun: true })).toMatch(/no-run.*comment saying why/);
    expect(conventionProblem({ fenceLine: 1, lines: ['# offline step', 'ssh other'], noRun: true })).toBeNull();
    expect(conventionProblem({ fenceLine: 1, lines: ['curl x'], noRun: false })).toBeNull();
  });
});

describe('splitCommands', () => {
  it('joins lines continued by a backslash, an open quote, an open $( or a trailing pipe', () => {
    const lines = [
      'curl -s "$B/a" \\', // 1
      '  -d \'{', // 2
      '  "x": 1}\'', // 3
      'X=$(curl -s "$B/b" |', // 4
      '  jq -r .id)', // 5
      'echo "$X"', // 6
    ];
    expect(splitCommands(lines).map(({ firstLine, lastLine }) => [firstLine, lastLine])).toEqual([
      [1, 3],
      [4, 5],
      [6, 6],
    ]);
  });

  it('reads a status announced on the command or in the comment lines right after it, not after a blank line', () => {
    const lines = [
      'curl -s "$B/x"   # → 404 not found', // 1
      'curl -s "$B/y"', // 2
      '# → 201 {doc_id, ...}', // 3
      '#   more words', // 4
      'curl -s "$B/z"', // 5
      '', // 6
      '# → 404 belongs to nothing', // 7
      'curl -s "$B/w"   # → {results} (no status)', // 8
    ];
    expect(splitCommands(lines).map((command) => command.announcedStatus)).toEqual([404, 201, null, null]);
  });

  it('does not read # inside quotes as a comment', () => {
    const commands = splitCommands(['curl -s "$B/x#frag" -d \'# → 404\'', '# → 201']);
    expect(commands).toEqual([{ firstLine: 1, lastLine: 1, announcedStatus: 201 }]);
  });

  it('maps every line of an announced command to its status, so a curl on any of them finds it', () => {
    const commands = splitCommands(['X=$(', '  curl -s "$B/x")', '# → 404', 'curl -s "$B/y"']);
    expect([...announcedStatusByLine(commands)]).toEqual([
      [1, 404],
      [2, 404],
    ]);
  });
});

describe('rewriteLine', () => {
  const rewrites = { literals: [['127.0.0.1:8080', '127.0.0.1:41234']] as const, owner: ['user-42', 'user-42-docs-search'] as const };

  it('moves the reader\'s address to the check\'s port and the owner to the file\'s own', () => {
    expect(rewriteLine('B=http://127.0.0.1:8080; curl "$B/v1/x?entity_id=user-42&k=1"', rewrites)).toBe(
      'B=http://127.0.0.1:41234; curl "$B/v1/x?entity_id=user-42-docs-search&k=1"',
    );
  });

  it('leaves other owners that merely start with the same text', () => {
    expect(rewriteLine('entity_id=user-420 entity_id=user-42-b user-42', rewrites)).toBe('entity_id=user-420 entity_id=user-42-b user-42-docs-search');
  });
});
