import { renderFileBlock } from '../../prompt/blocks';
import { fileContext } from '../file';
import { required, type ContextModeSpec } from './types';

/** The focal file as recorded (Rust without its test items) in front of the prompt. */
export const fileMode: ContextModeSpec<'file'> = {
  id: 'file',
  label: 'File (the whole file the function is in)',
  needs: () => [],
  gather: async ({ task, language }) => ({ file: await fileContext(task, language) }),
  render: (context, task) => renderFileBlock(task.file_path, required(context.file, 'file', 'the focal file (fileContext)', task)),
};
