/**
 * The Ruby file we load through RUBYOPT before RSpec, the spec helper or the project's code: line
 * coverage of the **example phase** only (METRICS.md, Ruby; docs/metrics.md).
 *
 * Ruby's Coverage counts a line whenever it runs, so a plain `Coverage.result` credits a method's
 * `def` line when its file loads and every line a suite hook of the project runs (a spec helper's
 * `after` that restores state, an `around` of a shared context): a spec that never calls the method
 * scored Cov 57 % on a real gem. Here counts are taken in windows instead: `Coverage.result(stop:
 * false, clear: true)` at every entry into and exit from an example body or a hook, and a window's
 * counts are kept only when it ran an example body or a hook the test's own file registers (the
 * first frame outside rspec-core that registers it is `XRT_TEST_FILE`: its before/after/around, and
 * `let!`/`subject!`). Loading files, `RSpec.configure` blocks, describe-level code and hooks from
 * anywhere else (the spec helper, support files, shared contexts) are measured as zero; a `let`
 * counts where it is called from. The `def` lines themselves
 * are left out of the executable lines by the engine (definition-lines.ts), since no example runs them.
 *
 * Hooked through RSpec's two funnels, found by `:end` events so that nothing is required early (under
 * `bundle exec` rspec-core must come from the bundle): `Example#initialize` (the body, after the
 * metadata has taken the block's location) and `HookCollections#register` (every hook, the
 * configuration's included). State lives in closure locals, not constants, so a spec finds no module
 * to reopen; reaching it anyway needs `binding` tricks, which the tampering signs flag.
 *
 * Only the first Ruby process measures (`bundle exec` may exec rspec under the same pid); Ruby
 * programs the specs start do not overwrite the report. Written on exit, keeping the exit status.
 *
 * With the file, its SHA-256 goes to the phase's output (`xrepotest-coverage-sha256: …`, on a copy of
 * stderr taken before any spec loads): a finalizer or another at_exit that runs after ours can rewrite
 * the file, but not the line already in the engine's pipe (ruby/tampering.ts, issue 31).
 */
export const COVERAGE_SUM = /^xrepotest-coverage-sha256: ([0-9a-f]{64})$/gm;

export const COVERAGE_START = `# xrepotest: example-phase line coverage (written by the engine, not part of the project).
if ENV['XRT_COVERAGE_OUT'] && (ENV['XRT_COVERAGE_PID'] ||= Process.pid.to_s) == Process.pid.to_s
  require 'coverage'
  Coverage.start(lines: true)
  lambda do
    # A fork of this process inherits the at_exit below: only the process that loaded this file writes.
    measuring_pid = Process.pid
    said = STDERR.dup
    hits = {}
    stack = []
    test_file = File.expand_path(ENV.fetch('XRT_TEST_FILE', ''))
    take = lambda do
      measuring = stack.last == true
      Coverage.result(stop: false, clear: true).each do |file, entry|
        lines = entry.is_a?(Hash) ? entry[:lines] : entry
        next unless lines
        next if !measuring && hits.key?(file)
        mine = (hits[file] ||= Array.new(lines.size))
        lines.each_with_index { |n, i| mine[i] = (mine[i] || 0) + (measuring ? n : 0) if n }
      end
    end
    wrap = lambda do |block, measure|
      proc do |*args|
        take.call
        stack.push(measure)
        begin
          instance_exec(*args, &block)
        ensure
          take.call
          stack.pop
        end
      end
    end
    me = File.expand_path(__FILE__)
    rspec_dir = nil
    # A hook is the test's when the first code outside rspec-core that registers it is the test file:
    # its own before/after/around, and \`let!\`/\`subject!\` (rspec-core's own block, called from the test).
    own = lambda do
      frame = caller_locations.find do |l|
        file = l.absolute_path || l.path
        file && !file.start_with?('<internal:') && file != me && !(rspec_dir && file.start_with?(rspec_dir))
      end
      !frame.nil? && File.expand_path(frame.absolute_path || frame.path) == test_file
    end
    name_of = Module.instance_method(:name)
    patched = {}
    installer = TracePoint.new(:end) do |tp|
      mod = tp.self
      name = mod.is_a?(Module) ? name_of.bind_call(mod) : nil
      if name == 'RSpec::Core::Example' && !patched[:example]
        patched[:example] = true
        mod.prepend(Module.new do
          define_method(:initialize) do |*args, &blk|
            super(*args, &blk)
            body = instance_variable_get(:@example_block)
            instance_variable_set(:@example_block, wrap.call(body, true)) if body
          end
        end)
      elsif name == 'RSpec::Core::Hooks::HookCollections' && !patched[:hooks]
        patched[:hooks] = true
        rspec_dir = File.dirname(File.expand_path(tp.path)) + '/'
        mod.prepend(Module.new do
          define_method(:register) do |prepend_or_append, position, *args, &blk|
            blk = wrap.call(blk, own.call) if blk
            super(prepend_or_append, position, *args, &blk)
          end
        end)
      end
      installer.disable if patched[:example] && patched[:hooks]
    end
    installer.enable
    at_exit do
      next unless Process.pid == measuring_pid
      status = $!.is_a?(SystemExit) ? $!.status : nil
      # A spec that stopped Coverage loses its counts (flagged as tampering), never the exit status.
      begin
        take.call
      rescue StandardError
        nil
      end
      require 'json'
      require 'digest'
      json = JSON.generate(hits.transform_values { |v| { 'lines' => v } })
      File.write(ENV.fetch('XRT_COVERAGE_OUT'), json)
      begin
        said.write("\nxrepotest-coverage-sha256: #{Digest::SHA256.hexdigest(json)}\n")
        said.flush
      rescue StandardError
        nil
      end
      exit(status) if status
    end
  end.call
end
`;
